package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/pkg/scaffold"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/validate"
)

type initOptions struct {
	IO    *iostreams.IOStreams
	Cwd   func() (string, error)
	JSON  bool
	Quiet bool

	Name        string
	Dir         string
	Description string
	Mode        string
	Resources   []string
	License     string
}

func init() { register(func(f *Factory) *cobra.Command { return newInitCmd(f, nil) }) }

func newInitCmd(f *Factory, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "init <name> [--dir <parent>] [--description <text>] [--mode {sandbox|direct}] [--resources <list>] [--license <license>]",
		Short: "Create a new skill that passes validation from the start",
		Long: `Create the folder <parent>/<name> (the current folder by default) holding a
SKILL.md that passes 'skillctl validate' under every profile, --profile spec
included: skillctl's execution fields (mode, entrypoint, version) are written
as strings under metadata. Without --description the description is a TODO
placeholder, the one finding (a warning, so 'validate --strict' fails until it
is written). A warning names each profile the new skill would fail (the
anthropic-api profile refuses names holding claude or anthropic).

A sandbox skill (the default) also gets an executable scripts/run.sh that
reads its input (JSON on standard input) and prints it, so 'skillctl run
<name>' works at once. A direct skill's body is the instructions that
'skillctl run' prints. --resources creates the listed folders (scripts,
references, assets), each with a short README.

The name follows the Agent Skills rules: lowercase letters, digits and
hyphens, at most 64 characters, no hyphen at either end or two in a row.
An existing folder that is not empty is never touched. The new folder
appears complete or not at all. The new folder's path is printed on stdout.`,
		Annotations: exitStatus(`  0  the skill was created
  1  the folder exists and is not empty, or it could not be written
  2  bad flags or arguments, an invalid name or description`),
		Example: `  skillctl init pdf-summary
  skillctl init csv-clean --dir ~/.claude/skills --description "Cleans CSV files. Use when..."
  skillctl init release-notes --mode direct --resources references,assets --license MIT`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			opts.JSON = f.Global.JSON
			opts.Quiet = f.Global.Quiet
			if err := skill.CheckName(opts.Name); err != nil {
				return &FlagError{Err: nameHint(err)}
			}
			if opts.Mode != skill.ModeSandbox && opts.Mode != skill.ModeDirect {
				return FlagErrorf("--mode must be sandbox or direct, not %q", opts.Mode)
			}
			for _, r := range opts.Resources {
				if r = strings.TrimSuffix(strings.TrimSpace(r), "/"); r != "" && !slices.Contains(scaffold.Resources, r) {
					return FlagErrorf("--resources takes %s, not %q", strings.Join(scaffold.Resources, ", "), r)
				}
			}
			if cmd.Flags().Changed("description") && strings.TrimSpace(opts.Description) == "" {
				return FlagErrorf("--description cannot be empty: say what the skill does and when to use it")
			}
			opts.Cwd = f.Cwd
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return initRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Dir, "dir", "", "create the skill folder in `PARENT` (default: the current folder)")
	fl.StringVar(&opts.Description, "description", "", "what the skill does and when to use it (`TEXT`)")
	fl.StringVar(&opts.Mode, "mode", skill.ModeSandbox, "the `MODE` 'skillctl run' runs it in: {sandbox|direct}")
	fl.StringSliceVar(&opts.Resources, "resources", nil, "folders to create: `LIST` of scripts, references, assets")
	fl.StringVar(&opts.License, "license", "", "the license field, e.g. MIT or Apache-2.0 (`LICENSE`)")
	_ = cmd.MarkFlagDirname("dir")
	_ = cmd.RegisterFlagCompletionFunc("mode", fixedCompletion(skill.ModeSandbox, skill.ModeDirect))
	_ = cmd.RegisterFlagCompletionFunc("resources", fixedCompletion(scaffold.Resources...))
	_ = cmd.MarkFlagDirname("dir")
	return cmd
}

func initRun(ctx context.Context, opts *initOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cwd, err := opts.Cwd()
	if err != nil {
		return err
	}
	parent := opts.Dir
	switch {
	case parent == "":
		parent = cwd
	case strings.HasPrefix(parent, "~/") || parent == "~":
		return FlagErrorf("--dir %s: the shell did not expand ~; write the full path", parent)
	case !filepath.IsAbs(parent):
		parent = filepath.Join(cwd, parent)
	}
	res, err := scaffold.Create(scaffold.Options{Name: opts.Name, Parent: parent, Description: opts.Description,
		Mode: opts.Mode, Resources: opts.Resources, License: opts.License})
	if err != nil {
		var ne *skill.NameError
		var ie *scaffold.InputError
		if errors.As(err, &ne) || errors.As(err, &ie) {
			return &FlagError{Err: nameHint(err)}
		}
		if errors.Is(err, scaffold.ErrExists) {
			return fmt.Errorf("init %s: %w; choose another name or --dir, or remove the folder first", opts.Name, err)
		}
		return fmt.Errorf("init %s: %w", opts.Name, err)
	}
	if !opts.Quiet {
		for _, w := range profileWarnings(res.Path) {
			fmt.Fprintln(opts.IO.ErrOut, "warning: "+w)
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, res)
	}
	fmt.Fprintln(opts.IO.Out, res.Path)
	if !opts.Quiet {
		e := opts.IO.ErrOut
		fmt.Fprintf(e, "Created the %s skill %s with %s.\n", res.Mode, res.Name, strings.Join(res.Files, ", "))
		if strings.TrimSpace(opts.Description) == "" {
			fmt.Fprintf(e, "Its description is a TODO placeholder: 'validate --strict' fails until it says what the skill does.\n")
		}
		fmt.Fprintf(e, "Next: write its description and instructions in SKILL.md, then\n")
		fmt.Fprintf(e, "  skillctl validate %s\n", res.Path)
		fmt.Fprintf(e, "  skillctl run %s\n", res.Path)
	}
	return nil
}

// profileWarnings checks a new skill under every validation profile and
// names each profile it would fail, with the findings: a name such as
// claude-helper is fine for agents but refused by the Anthropic API.
func profileWarnings(dir string) []string {
	var out []string
	for _, p := range validate.Profiles {
		res := validate.Dir(dir, validate.Options{Profile: p})
		var why []string
		for _, f := range res.Findings {
			if f.Severity == validate.Error {
				why = append(why, f.Message+" ("+f.Rule+")")
			}
		}
		if len(why) > 0 {
			out = append(out, fmt.Sprintf("%s fails 'skillctl validate --profile %s': %s; choose another name if the skill is meant for it",
				filepath.Base(dir), p, strings.Join(why, "; ")))
		}
	}
	return out
}

// nameHint adds to a name that is a path how to say what was meant.
func nameHint(err error) error {
	var ne *skill.NameError
	if errors.As(err, &ne) && ne.IsPath {
		return fmt.Errorf("%w; give the name alone and the parent folder with --dir", err)
	}
	return err
}
