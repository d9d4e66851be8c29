package cmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/render"
	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/config"
	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/validate"
)

// Output formats of validate.
var validateFormats = []string{"text", "json", "github", "sarif"}

type validateOptions struct {
	IO       *iostreams.IOStreams
	Discover func(ctx context.Context) ([]string, error)
	Cwd      func() (string, error)
	Config   func() (*config.Config, error)
	Paths    []string
	Rules    []string
	Profile  string
	Strict   bool
	Format   string
	Quiet    bool
	Version  string
	// ProgressAfter is how long a run goes before a progress line is shown on a terminal.
	ProgressAfter time.Duration
}

func init() { register(func(f *Factory) *cobra.Command { return newValidateCmd(f, nil) }) }

func newValidateCmd(f *Factory, runF func(context.Context, *validateOptions) error) *cobra.Command {
	opts := &validateOptions{IO: f.IO, Version: Version(), ProgressAfter: time.Second}
	cmd := &cobra.Command{
		Use:   "validate [<path>...] [--profile <profile>] [--strict] [--format {text|json|github|sarif}]",
		Short: "Check skills against the Agent Skills rules",
		Long: `Check skills against the rules of the Agent Skills specification and
skillctl's own rules ('skillctl help rules' lists every rule).

A path is a skill folder, a SKILL.md, a folder tree (every skill below it,
skipping .git, node_modules and what .gitignore ignores), or an archive (.zip, .skill, .tar, .tar.gz,
.tgz, tar.bz2/xz/zst) read in place: nothing is extracted. Without a path,
every discovered skill is checked (see 'skillctl list').

Profiles:
  default        Claude Code's fields and skillctl's execution fields are
                 accepted; unknown keys are warnings
  spec           decides like the agentskills.io reference validator: strict
                 YAML, only the six standard keys, NFKC name rules
  claude-code    the standard keys plus Claude Code's fields
  anthropic-api  the upload rules of the Anthropic API (ASCII name, no
                 anthropic/claude in it, no < or > in the description)

Formats: text prints one line per finding, FILE:LINE:COL: SEVERITY RULE
message, then "N skill(s) validated, M failed"; json prints one document
(--json is the same); github prints workflow commands that annotate pull
requests; sarif prints a SARIF 2.1.0 log for code scanning. The text
output ends with the number of findings of each rule; github and sarif
name files relative to the top of the repository, wherever validate runs.
--quiet hides info findings.

For CI: --rule RULE=LEVEL (off, info, warning or error) sets a rule's
severity for this run, over the profile's; the configuration's
validate.rules does the same for every run, and validate.exclude lists
folders to leave out (.gitignore patterns), e.g. in .skillctl.yaml:

  validate:
    rules:
      unknown-field: info
      body-too-long: off
    exclude:
      - vendor/
      - "**/testdata/"`,
		Annotations: exitStatus(`  0  no errors (and, with --strict, no warnings)
  1  at least one skill has an error (or a warning with --strict)
  2  bad flags or arguments
  3  a path does not exist`),
		Example: `  skillctl validate ./my-skill
  skillctl validate skills/ --profile spec
  skillctl validate dist/my-skill.skill
  skillctl validate --strict --format github .
  skillctl validate --rule unknown-field=off --rule body-too-long=info skills/
  skillctl validate --format sarif . > validate.sarif`,
		ValidArgsFunction: completeFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			opts.Quiet = f.Global.Quiet
			if !slices.Contains(validate.Profiles, opts.Profile) {
				return FlagErrorf("--profile must be one of %s, not %q", strings.Join(validate.Profiles, ", "), opts.Profile)
			}
			if !slices.Contains(validateFormats, opts.Format) {
				return FlagErrorf("--format must be one of %s, not %q", strings.Join(validateFormats, ", "), opts.Format)
			}
			if f.Global.JSON {
				if cmd.Flags().Changed("format") && opts.Format != "json" {
					return FlagErrorf("--json and --format %s cannot be used together", opts.Format)
				}
				opts.Format = "json"
			}
			opts.Cwd = f.Cwd
			opts.Config = f.Config
			opts.Discover = f.discoveredSkillDirs
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return validateRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", validate.ProfileDefault, "the rule set `PROFILE`: {default|spec|claude-code|anthropic-api}")
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "fail on warnings too")
	cmd.Flags().StringArrayVar(&opts.Rules, "rule", nil, "set a rule's severity: `RULE=LEVEL`, LEVEL one of off, info, warning, error (repeatable)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: {text|json|github|sarif}")
	_ = cmd.RegisterFlagCompletionFunc("profile", fixedCompletion(validate.Profiles...))
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(validateFormats...))
	_ = cmd.RegisterFlagCompletionFunc("rule", completeRuleLevels)
	return cmd
}

// discoveredSkillDirs is the folder of every discovered skill (validate and
// audit without a path), warning about the links that were not followed.
func (f *Factory) discoveredSkillDirs(ctx context.Context) ([]string, error) {
	cat, err := f.Discover(ctx, true, false)
	if err != nil {
		return nil, err
	}
	for _, e := range cat.Entries {
		if e.Skipped() {
			warnSkipped(f.IO.ErrOut, e.Dir, skill.ErrorReason(e.Err))
		}
	}
	return cat.SkillDirs(), nil
}

func validateRun(ctx context.Context, opts *validateOptions) error {
	cwd := ""
	if opts.Cwd != nil {
		c, err := opts.Cwd()
		if err != nil {
			return err
		}
		cwd = c
	}
	var cfg *config.Config
	if opts.Config != nil {
		c, err := opts.Config()
		if err != nil {
			return err
		}
		cfg = c
	}
	levels, exclude, err := validate.Settings(cfg, cwd)
	if err != nil {
		return err
	}
	if levels, err = validate.ParseRuleLevels(levels, opts.Rules); err != nil {
		return &FlagError{Err: fmt.Errorf("--rule: %w", err)}
	}
	paths := opts.Paths
	if len(paths) == 0 {
		dirs, err := opts.Discover(ctx)
		if err != nil {
			return err
		}
		for _, d := range dirs {
			if !exclude.Excluded(d) {
				paths = append(paths, d)
			}
		}
	}
	v := &validate.Validator{Options: validate.Options{Profile: opts.Profile, Levels: levels, Exclude: exclude}, BaseDir: cwd}
	stop := startProgress(opts, v)
	rep, err := v.Run(ctx, paths)
	stop()
	if err != nil {
		return err
	}
	for _, p := range rep.Skipped {
		warnSkipped(opts.IO.ErrOut, p.Path, p.Reason)
	}
	if opts.Quiet {
		rep = rep.WithoutInfo()
	}
	out := opts.IO.Out
	switch opts.Format {
	case "json":
		err = rep.WriteJSON(out, opts.Strict)
	case "github":
		err = rep.RelativeTo(cwd, agents.RepoTop(cwd)).WriteGitHub(out, opts.Strict)
	case "sarif":
		err = rep.RelativeTo(cwd, agents.RepoTop(cwd)).WriteSARIF(out, opts.Version)
	default:
		err = writeValidateText(out, rep, opts)
	}
	if err != nil {
		return err
	}
	if rep.Failed(opts.Strict) {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

func writeValidateText(w io.Writer, rep *validate.Report, opts *validateOptions) error {
	tty := opts.IO.IsStdoutTTY()
	st := render.ForStdout(opts.IO)
	if err := findings.WriteText(w, rep.Findings(), findingStyle(opts.IO, true)); err != nil {
		return err
	}
	if err := rep.WriteRuleCounts(w); err != nil {
		return err
	}
	line := rep.SummaryLine(opts.Strict)
	if tty {
		if rep.Failed(opts.Strict) {
			line = st.Error.Render(line)
		} else {
			line = st.Success.Render(line)
		}
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// startProgress shows "validating… N skill(s)" on stderr when it is a
// terminal and the run takes longer than opts.ProgressAfter. The returned
// function stops it and clears the line.
func startProgress(opts *validateOptions, v *validate.Validator) func() {
	if !opts.IO.IsStderrTTY() || opts.Quiet {
		return func() {}
	}
	var done atomic.Int64
	v.Progress = func(n int) {
		for {
			cur := done.Load()
			if int64(n) <= cur || done.CompareAndSwap(cur, int64(n)) {
				return
			}
		}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	var shown atomic.Bool
	show := func() {
		shown.Store(true)
		fmt.Fprintf(opts.IO.ErrOut, "\rvalidating… %d skill(s)", done.Load())
	}
	if opts.ProgressAfter <= 0 {
		show()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if opts.ProgressAfter > 0 {
			select {
			case <-quit:
				return
			case <-time.After(opts.ProgressAfter):
			}
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			show()
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(quit)
		wg.Wait()
		if shown.Load() {
			fmt.Fprint(opts.IO.ErrOut, "\r\033[K")
		}
	}
}

// completeRuleLevels completes --rule: rule ids, then RULE=LEVEL.
func completeRuleLevels(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	if rule, _, ok := strings.Cut(toComplete, "="); ok {
		for _, l := range validate.LevelNames {
			out = append(out, rule+"="+l)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	for _, r := range validate.Rules {
		out = append(out, r.ID+"=\t"+r.Summary)
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
