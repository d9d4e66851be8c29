package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/index"
	"github.com/skillctl/skillctl/pkg/skill"
)

type indexOptions struct {
	IO *iostreams.IOStreams
	// Gather finds the skills to index (discovery, or the PATH arguments)
	// and the disabled-skill rule of the configuration.
	Gather func(ctx context.Context, paths []string, needBody bool) ([]index.Item, func(name, id string) bool, error)
	Cwd    func() (string, error)
	Quiet  bool

	Paths   []string
	Sources []string
	Format  string
	// FormatSet is whether --format (or --json) was given; without it
	// --write picks the format by the file's extension.
	FormatSet bool
	Style     string
	Write     string
	Out       string
}

func init() { register(func(f *Factory) *cobra.Command { return newIndexCmd(f, nil) }) }

func newIndexCmd(f *Factory, runF func(context.Context, *indexOptions) error) *cobra.Command {
	opts := &indexOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "index [<path>...] [--format <format>] [--style <style>] [--source <tier>]... [--write <file>] [--out <dir>]",
		Short: "Print the skills as a catalog for agents",
		Long: `Print the skills an agent may use in a form it reads: the <available_skills>
block of the agentskills.io reference (xml, the default), a catalog for lazy
loading, a Markdown prompt section, JSON, function-calling tool definitions,
or a static .well-known site.

Without <path> the discovered skills are indexed (as 'skillctl list' finds
them). A <path> is a skill folder, a SKILL.md, or a folder of skills: every
folder below it holding a SKILL.md, skipping .git and node_modules, found as
validate and list --path find them.

Skills disabled in the configuration (disabled:) and skills with
disable-model-invocation: true are left out, and said so on stderr. The order
is by name, so the output only changes when the skills do.

Formats:
  xml        <available_skills>, byte for byte what skills-ref to-prompt prints
  catalog    <available_skills> with paths and files, for lazy loading
  markdown   "## Available Skills"; --style awareness (default), direct or tool
  json       name, id, description, source, path, location, tokens per skill
  tools      function-calling definitions: skill, read_skill_file, skill:<name>
  wellknown  --out DIR: .well-known/agent-skills/index.json and the archives

--source TIER keeps only the skills of that tier (user, project, env, path,
plugin; repeatable).

--write FILE puts the output between <!-- skillctl:begin --> and
<!-- skillctl:end --> in FILE, creating the file or the block when missing and
keeping everything else byte for byte (a .json file is replaced whole, as
JSON has no comments). The file is replaced atomically, and only when its
content changes. Without --format the format follows the extension: .md
catalog, .json json, .xml xml. For a FILE inside a repository, only that
repository's skills are indexed (--source or a <path> chooses others), and
their paths are relative to FILE's folder, so that the committed file is
right in every clone.`,
		Annotations: exitStatus(`  0  the index was printed or written
  1  the index could not be built or written (nothing was changed)
  2  bad flags or arguments
  3  a <path> does not exist`),
		Example: `  skillctl index
  skillctl index --format markdown --style tool
  skillctl index --format tools > tools.json
  skillctl index --write AGENTS.md
  skillctl index --source user --source project --format markdown
  skillctl index --format wellknown --out public/`,
		ValidArgsFunction: completeFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			opts.Quiet = f.Global.Quiet
			opts.FormatSet = cmd.Flags().Changed("format") || f.Global.JSON
			if !opts.FormatSet && opts.Write != "" {
				if ff := index.FormatForFile(opts.Write); ff != "" {
					opts.Format = ff
				}
			}
			var sources []string
			for _, src := range opts.Sources {
				for _, one := range strings.Split(src, ",") {
					if !slices.Contains(skill.Sources, one) {
						return FlagErrorf("--source must be one of %s, not %q", strings.Join(skill.Sources, ", "), one)
					}
					sources = append(sources, one)
				}
			}
			opts.Sources = sources
			if f.Global.JSON {
				if cmd.Flags().Changed("format") && opts.Format != index.FormatJSON {
					return FlagErrorf("--json prints the json format; drop --json or --format %s", opts.Format)
				}
				opts.Format = index.FormatJSON
			}
			if !slices.Contains(index.Formats, opts.Format) {
				return FlagErrorf("--format must be one of %s, not %q", strings.Join(index.Formats, ", "), opts.Format)
			}
			if cmd.Flags().Changed("style") {
				if opts.Format != index.FormatMarkdown {
					return FlagErrorf("--style goes with --format markdown")
				}
				if !slices.Contains(index.Styles, opts.Style) {
					return FlagErrorf("--style must be one of %s, not %q", strings.Join(index.Styles, ", "), opts.Style)
				}
			}
			if opts.Format == index.FormatWellKnown {
				if opts.Out == "" {
					return FlagErrorf("--format wellknown needs --out DIR, the folder the site is written to")
				}
				if opts.Write != "" {
					return FlagErrorf("--write cannot be used with --format wellknown, which writes a folder")
				}
			} else if opts.Out != "" {
				return FlagErrorf("--out goes with --format wellknown; use --write FILE to put the index into a file")
			}
			opts.Cwd = f.Cwd
			opts.Gather = f.gatherIndexItems
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return indexRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", index.FormatXML, "output `FORMAT`: {xml|catalog|markdown|json|tools|wellknown}")
	fl.StringVar(&opts.Style, "style", index.StyleAwareness, "Markdown `STYLE`: {awareness|direct|tool}")
	fl.StringVar(&opts.Write, "write", "", "put the index into `FILE` between skillctl's marker comments")
	fl.StringArrayVar(&opts.Sources, "source", nil, "only skills of `TIER`: {user|project|env|path|plugin} (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("source", fixedCompletion(skill.Sources...))
	fl.StringVar(&opts.Out, "out", "", "write the wellknown site into `DIR`")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(index.Formats...))
	_ = cmd.RegisterFlagCompletionFunc("style", fixedCompletion(index.Styles...))
	_ = cmd.MarkFlagFilename("write")
	_ = cmd.MarkFlagDirname("out")
	return cmd
}

// gatherIndexItems finds the skills to index (index.Gather) and warns about
// what could not be loaded.
func (f *Factory) gatherIndexItems(ctx context.Context, paths []string, needBody bool) ([]index.Item, func(name, id string) bool, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, nil, err
	}
	o, err := f.DiscoverOptions()
	if err != nil {
		return nil, nil, err
	}
	o.DropBody = !needBody
	got, err := index.Gather(ctx, paths, o)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range got.Problems {
		warnSkipped(f.IO.ErrOut, p.Path, p.Reason)
	}
	const shown = 10
	for i, d := range got.Duplicates {
		if i == shown {
			f.Warnf("and %d more skills found twice; 'skillctl list --all --path PATH' lists them all", len(got.Duplicates)-shown)
			break
		}
		f.Warnf("skill %s is in both %s and %s; indexing the one in %s", d.Name, d.Lost, d.Kept, d.Kept)
	}
	return got.Items, cfg.IsDisabled, nil
}

func indexRun(ctx context.Context, opts *indexOptions) error {
	needBody := opts.Format == index.FormatMarkdown && opts.Style == index.StyleDirect
	all, disabled, err := opts.Gather(ctx, opts.Paths, needBody)
	if err != nil {
		return err
	}
	if len(opts.Sources) > 0 {
		all = slices.DeleteFunc(all, func(it index.Item) bool { return !slices.Contains(opts.Sources, it.Skill.Source) })
	}
	file := ""
	if opts.Write != "" {
		file = opts.Write
		if !filepath.IsAbs(file) {
			cwd, err := opts.Cwd()
			if err != nil {
				return err
			}
			file = filepath.Join(cwd, file)
		}
		var outside int
		var repo string
		all, outside, repo = index.ForFile(all, file, len(opts.Paths) == 0 && len(opts.Sources) == 0)
		if outside > 0 && !opts.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "left out %s from outside the repository %s (--source user, --source project, … index them too)\n",
				plural(outside, "skill"), repo)
		}
	}
	items, left := index.Select(all, disabled)
	if !opts.Quiet {
		for _, x := range left {
			fmt.Fprintf(opts.IO.ErrOut, "left out %s (%s): %s\n", safetext.Line(x.Name), safetext.Line(x.ID), safetext.Line(x.Reason))
		}
	}
	if opts.Format == index.FormatWellKnown {
		return indexWellKnown(ctx, opts, items)
	}
	var buf strings.Builder
	if err := index.Render(&buf, items, index.Options{Format: opts.Format, Style: opts.Style}); err != nil {
		return err
	}
	if opts.Write == "" {
		text := buf.String()
		if opts.IO.IsStdoutTTY() && opts.Format != index.FormatJSON && opts.Format != index.FormatTools {
			text = safetext.Text(text) // what skills wrote, made visible on a terminal
		}
		_, err := fmt.Fprint(opts.IO.Out, text)
		return err
	}
	write := index.WriteBlock
	if strings.EqualFold(filepath.Ext(file), ".json") {
		write = index.WriteWhole
	}
	changed, err := write(file, []byte(buf.String()))
	if err != nil {
		return fmt.Errorf("index --write: %w", err)
	}
	if !opts.Quiet {
		n := plural(len(items), "skill")
		if changed {
			fmt.Fprintf(opts.IO.ErrOut, "Wrote %s to %s\n", n, opts.Write)
		} else {
			fmt.Fprintf(opts.IO.ErrOut, "%s is up to date (%s)\n", opts.Write, n)
		}
	}
	return nil
}

func indexWellKnown(ctx context.Context, opts *indexOptions, items []index.Item) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	out := opts.Out
	if !filepath.IsAbs(out) {
		cwd, err := opts.Cwd()
		if err != nil {
			return err
		}
		out = filepath.Join(cwd, out)
	}
	idx, err := index.WriteWellKnown(ctx, out, items)
	if err != nil {
		return fmt.Errorf("index --format wellknown: %w", err)
	}
	dir := filepath.Join(out, filepath.FromSlash(index.WellKnownDir))
	fmt.Fprintln(opts.IO.Out, filepath.Join(dir, "index.json"))
	if !opts.Quiet {
		archives := 0
		for _, s := range idx.Skills {
			if s.Type == index.TypeArchive {
				archives++
			}
		}
		fmt.Fprintf(opts.IO.ErrOut, "Wrote %s to %s (%d as SKILL.md, %d as archives)\n",
			plural(len(idx.Skills), "skill"), dir, len(idx.Skills)-archives, archives)
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
