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
	"github.com/skillctl/skillctl/pkg/install"
	"github.com/skillctl/skillctl/pkg/skill"
)

type listOptions struct {
	IO       *iostreams.IOStreams
	Discover func(ctx context.Context) (*catalog.Catalog, error)
	JSON     bool
	Source   string
	All      bool
	// UserLock is the user scope's lock (where FROM is looked up).
	UserLock string
}

func init() { register(func(f *Factory) *cobra.Command { return newListCmd(f, nil) }) }

func newListCmd(f *Factory, runF func(context.Context, *listOptions) error) *cobra.Command {
	opts := &listOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "list [--source <tier>] [--all]",
		Aliases: []string{"ls"},
		Short:   "List the skills agents can see",
		Long: `List every skill found in the user, project, env, path and plugin folders
of every agent (or of each --agent; see 'skillctl help environment'), one per
name: a skill in a higher-precedence folder shadows one with the same name in
a lower one.

On a terminal the list is a table: NAME, SOURCE, MODE (the mode 'skillctl run'
uses: auto is sandbox for a skill with an entrypoint, direct otherwise),
DESCRIPTION, AGENTS (the agents that load the skill's folder), PATH on wide
terminals (140 columns) and FROM (where skillctl installed it from, and when)
on wider ones (200 columns). In a
pipe each skill is one tab-separated row without a header: name, source,
mode, description, path, agents (comma-separated, - for none), from (the
source location, - when skillctl did not install it), and status with --all.
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
			opts.UserLock = f.userLock()
			if opts.Source != "" && !slices.Contains(skill.Sources, opts.Source) {
				return FlagErrorf("--source must be one of %s, not %q", strings.Join(skill.Sources, ", "), opts.Source)
			}
			opts.Discover = func(ctx context.Context) (*catalog.Catalog, error) {
				o, err := f.DiscoverOptions()
				if err != nil {
					return nil, err
				}
				o.DropBody, o.Modes = true, true
				cat, err := catalog.Discover(ctx, o)
				if err == nil && !f.Global.Quiet {
					f.WarnBroken(cat)
				}
				return cat, err
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
	tty := opts.IO.IsStdoutTTY()
	width := opts.IO.TerminalWidth()
	wide := !tty || width >= 140
	// FROM needs room too: on a terminal it comes at 200 columns.
	showFrom := !tty || width >= 200
	var from map[string]*skill.Provenance
	if opts.JSON || showFrom {
		dirs := make([]string, 0, len(entries))
		for _, e := range entries {
			if e.Source == skill.SourceUser || e.Source == skill.SourceProject {
				dirs = append(dirs, e.Dir)
			}
		}
		from = install.Provenances(dirs, opts.UserLock)
	}
	if opts.JSON {
		w := bufio.NewWriterSize(opts.IO.Out, 64<<10)
		err := writeJSONArray(w, len(entries), func(i int) skill.Summary {
			s := entries[i].Summary()
			if len(from) > 0 {
				s.Installed = from[entries[i].Dir]
			}
			return s
		})
		if err != nil {
			return err
		}
		return w.Flush()
	}
	if len(entries) == 0 {
		if tty {
			fmt.Fprintln(opts.IO.ErrOut, "No skills found. Skills are folders holding a SKILL.md under ~/.claude/skills, .claude/skills, .agents/skills or a --path folder.")
		}
		return nil
	}
	header := []string{"NAME", "SOURCE", "MODE", "DESCRIPTION", "AGENTS"}
	if !tty {
		header = []string{"NAME", "SOURCE", "MODE", "DESCRIPTION", "PATH", "AGENTS", "FROM"}
	} else if showFrom {
		header = append(header, "PATH", "FROM")
	} else if wide {
		header = append(header, "PATH")
	}
	if opts.All {
		header = append(header, "STATUS")
	}
	row := func(e *catalog.Entry, cells []string) []string {
		mode, desc := "-", ""
		if e.Skill != nil {
			mode, desc = e.Skill.EffectiveMode(), e.Skill.Description
		} else {
			desc = skill.ErrorReason(e.Err)
		}
		agents := "-"
		if len(e.Agents) > 0 {
			agents = strings.Join(e.Agents, ",")
		}
		origin := "-"
		var p *skill.Provenance
		if len(from) > 0 { // nothing installed by skillctl: no lookup per row
			p = from[e.Dir]
		}
		if p != nil {
			origin = p.Location
			if tty {
				origin = fromCell(p)
			}
		}
		cells = append(cells, e.DisplayName(), e.Source, mode, desc)
		switch {
		case !tty:
			cells = append(cells, e.Dir, agents, origin)
		case showFrom:
			cells = append(cells, agents, e.Dir, origin)
		case wide:
			cells = append(cells, agents, e.Dir)
		default:
			cells = append(cells, agents)
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
		return cells
	}
	w := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	if !tty {
		// A pipe gets one row at a time: nothing to align, nothing to hold.
		var cells []string
		var buf []byte
		for _, e := range entries {
			cells = row(e, cells[:0])
			buf = render.AppendRow(buf[:0], cells...)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return w.Flush()
	}
	t := &render.Table{Header: header, Width: width, Truncate: map[int]bool{3: true}, Rows: make([][]string, 0, len(entries))}
	cells := make([]string, 0, len(entries)*len(header))
	for _, e := range entries {
		start := len(cells)
		cells = row(e, cells)
		t.Rows = append(t.Rows, cells[start:len(cells):len(cells)])
	}
	if err := t.Print(w, tty, render.ForStdout(opts.IO)); err != nil {
		return err
	}
	return w.Flush()
}

// fromCell is where an installed skill came from, in short: the last part
// of its location and the day it was installed.
func fromCell(p *skill.Provenance) string {
	loc := strings.TrimRight(p.Location, "/")
	if p.Commit != "" {
		// a repository is named whole, with the commit
		loc += "@" + p.Commit[:min(7, len(p.Commit))]
	} else if i := strings.LastIndexAny(loc, `/\`); i >= 0 && i < len(loc)-1 {
		loc = loc[i+1:]
	}
	if p.Version != "" {
		loc += " " + p.Version
	}
	if len(p.InstalledAt) >= 10 {
		loc += " " + p.InstalledAt[:10]
	}
	return loc
}
