package cmd

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/render"
	"github.com/skillctl/skillctl/pkg/catalog"
	"github.com/skillctl/skillctl/pkg/skill"
)

type listOptions struct {
	IO       *iostreams.IOStreams
	Discover func(ctx context.Context) (*catalog.Catalog, error)
	JSON     bool
	Source   string
	All      bool
}

func init() { register(func(f *Factory) *cobra.Command { return newListCmd(f, nil) }) }

func newListCmd(f *Factory, runF func(context.Context, *listOptions) error) *cobra.Command {
	opts := &listOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "list [--source <tier>] [--all]",
		Short: "List the skills agents can see",
		Long: `List every skill found in the user, project, env, path and plugin folders
(see 'skillctl help environment' and docs/discovery.md), one per name: a skill
in a higher-precedence folder shadows one with the same name in a lower one.

On a terminal the list is a table (NAME, SOURCE, MODE, DESCRIPTION, and PATH
when the terminal is wide). In a pipe each skill is one tab-separated row
without a header: name, source, mode, description, path (and status with --all).
--all also lists shadowed skills and skills that could not be loaded.
Skills that cannot be loaded are always reported on stderr.`,
		Annotations: exitStatus(`  0  the list was printed (even when some skills could not be loaded)
  1  a configuration file could not be read
  2  bad flags or arguments
  3  the -C folder does not exist`),
		Example: `  skillctl list
  skillctl list --source project
  skillctl list --all --json | jq '.[] | select(.status=="broken")'`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = f.Global.JSON
			if opts.Source != "" && !slices.Contains(skill.Sources, opts.Source) {
				return FlagErrorf("--source must be one of %s, not %q", strings.Join(skill.Sources, ", "), opts.Source)
			}
			opts.Discover = func(ctx context.Context) (*catalog.Catalog, error) {
				return f.Discover(ctx, true, !f.Global.Quiet)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Source, "source", "", "only skills from `TIER`: {user|project|env|path|plugin}")
	cmd.Flags().BoolVar(&opts.All, "all", false, "also list shadowed skills and skills that could not be loaded")
	_ = cmd.RegisterFlagCompletionFunc("source", fixedCompletion(skill.Sources...))
	return cmd
}

func listRun(ctx context.Context, opts *listOptions) error {
	cat, err := opts.Discover(ctx)
	if err != nil {
		return err
	}
	var entries []*catalog.Entry
	for _, e := range cat.Entries {
		if opts.Source != "" && e.Source != opts.Source {
			continue
		}
		if !opts.All && (e.Skill == nil || e.ShadowedBy != "") {
			continue
		}
		entries = append(entries, e)
	}
	if opts.JSON {
		sums := make([]skill.Summary, len(entries))
		for i, e := range entries {
			sums[i] = e.Summary()
		}
		w := bufio.NewWriterSize(opts.IO.Out, 64<<10)
		if err := writeJSON(w, sums); err != nil {
			return err
		}
		return w.Flush()
	}
	tty := opts.IO.IsStdoutTTY()
	if len(entries) == 0 {
		if tty {
			fmt.Fprintln(opts.IO.ErrOut, "No skills found. Skills are folders holding a SKILL.md under ~/.claude/skills, .claude/skills, .agents/skills or a --path folder.")
		}
		return nil
	}
	width := opts.IO.TerminalWidth()
	wide := !tty || width >= 140
	header := []string{"NAME", "SOURCE", "MODE", "DESCRIPTION"}
	if wide {
		header = append(header, "PATH")
	}
	if opts.All {
		header = append(header, "STATUS")
	}
	t := &render.Table{Header: header, Width: width, Truncate: map[int]bool{3: true}, Rows: make([][]string, 0, len(entries))}
	cells := make([]string, 0, len(entries)*len(header))
	for _, e := range entries {
		start := len(cells)
		mode, desc := "-", ""
		if e.Skill != nil {
			mode, desc = e.Skill.EffectiveMode(), e.Skill.Description
		} else {
			desc = skill.ErrorReason(e.Err)
		}
		cells = append(cells, e.DisplayName(), e.Source, mode, desc)
		if wide {
			cells = append(cells, e.Dir)
		}
		if opts.All {
			status := skill.StatusOK
			switch {
			case e.Skill == nil:
				status = skill.StatusBroken
			case e.ShadowedBy != "":
				status = "shadowed by " + e.ShadowedBy
			}
			cells = append(cells, status)
		}
		t.Rows = append(t.Rows, cells[start:len(cells):len(cells)])
	}
	w := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	if err := t.Print(w, tty, render.ForStdout(opts.IO)); err != nil {
		return err
	}
	return w.Flush()
}
