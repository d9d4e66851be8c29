package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/tree"
	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/render"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/catalog"
	"github.com/skillctl/skillctl/pkg/install"
	"github.com/skillctl/skillctl/pkg/skill"
	gitsource "github.com/skillctl/skillctl/pkg/source"
)

type showOptions struct {
	IO      *iostreams.IOStreams
	Resolve func(ctx context.Context, arg string) (*skill.Skill, error)
	// Describe, when set, adds what discovery knows beyond the skill: the
	// mode a run uses, the agents that load it, where it was installed from.
	Describe func(s *skill.Skill) showExtra
	// Open, when set, reads an archive without installing it; close
	// removes what it unpacked.
	Open func(ctx context.Context, arg string) (s *skill.Skill, display string, close func(), err error)
	// OpenRemote reads the one skill of a git source or URL without
	// installing it, when arg names no skill here.
	OpenRemote func(ctx context.Context, arg string) (s *skill.Skill, display string, close func(), err error)
	JSON       bool
	Name       string
	File       string
	Raw        bool
}

func init() { register(func(f *Factory) *cobra.Command { return newShowCmd(f, nil) }) }

func newShowCmd(f *Factory, runF func(context.Context, *showOptions) error) *cobra.Command {
	opts := &showOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "show <name|id|path|archive> [--file <rel>] [--raw]",
		Short: "Show a skill: its header, files, token estimate and body",
		Long: `Show one skill, named by its name (pdf), its id (project:pdf, myplugin:pdf),
a path to its folder or SKILL.md, an archive holding one skill, or a git
source or archive URL naming one (owner/repo/path, a tree URL), read without
installing it ('skillctl install SOURCE --list' lists a source of several).

Without flags: a header (name, id, description, source, path, mode, license,
version), the tree of its files with sizes and types, an estimate of the
tokens SKILL.md costs, then the body. --file prints one file of the skill;
paths that leave the skill folder are refused. --raw prints SKILL.md exactly
as it is on disk. --json prints the full definition: every frontmatter
field as metadata, the body as content, and every file with its size and type.`,
		Annotations: exitStatus(`  0  shown
  1  the skill exists but cannot be loaded (the reason is printed)
  2  bad flags or arguments
  3  no such skill, path or file (close names are suggested)
  4  --file names a path outside the skill folder`),
		Example: `  skillctl show pdf
  skillctl show project:pdf --json
  skillctl show ./my-skill --file scripts/run.sh
  skillctl show pdf --raw > SKILL.md.bak`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSkillNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = f.Global.JSON
			opts.Name = args[0]
			if opts.Raw && opts.File != "" {
				return FlagErrorf("--raw and --file cannot be used together")
			}
			opts.Resolve = f.ResolveSkill
			opts.Describe = f.describeSkill
			opts.Open = f.openArchiveSkill
			opts.OpenRemote = f.openRemoteSkill
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return showRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.File, "file", "", "print the file `REL` of the skill")
	cmd.Flags().BoolVar(&opts.Raw, "raw", false, "print SKILL.md verbatim")
	_ = cmd.RegisterFlagCompletionFunc("file", completeSkillFiles(f))
	return cmd
}

// ResolveSkill finds a skill by name, id or path (catalog.Find). A path
// needs no configuration.
func (f *Factory) ResolveSkill(ctx context.Context, arg string) (*skill.Skill, error) {
	if catalog.LooksLikePath(arg) {
		cwd, err := f.Cwd()
		if err != nil {
			return nil, err
		}
		return catalog.Find(ctx, catalog.Options{Cwd: cwd}, arg)
	}
	o, err := f.DiscoverOptions()
	if err != nil {
		return nil, err
	}
	return catalog.Find(ctx, o, arg)
}

// showExtra is what show prints beyond the skill itself.
type showExtra struct {
	Agents    []string
	Installed *skill.Provenance
	// Display is the path to print instead of the skill's folder.
	Display string
}

// describeSkill works out the mode a run of s uses (with the configured
// default), the agents that load its folder and where it was installed from.
func (f *Factory) describeSkill(s *skill.Skill) showExtra {
	var x showExtra
	defaultMode := ""
	if cfg, err := f.Config(); err == nil {
		defaultMode = cfg.Run.DefaultMode
	}
	s.Mode = s.RunMode(defaultMode)
	if s.Source != skill.SourceUser && s.Source != skill.SourceProject {
		return x
	}
	if o, err := f.DiscoverOptions(); err == nil {
		o.Agents = agents.Names()
		parent := filepath.Dir(s.Dir)
		for _, r := range catalog.Roots(o) {
			if r.Dir == parent {
				x.Agents = r.Agents
			}
		}
	}
	x.Installed = install.Provenances([]string{s.Dir}, f.userLock())[s.Dir]
	return x
}

// openArchiveSkill reads the one skill of an archive file (not a SKILL.md,
// not a folder) without installing it; nil when arg is not such a file.
func (f *Factory) openArchiveSkill(ctx context.Context, arg string) (*skill.Skill, string, func(), error) {
	cwd, err := f.Cwd()
	if err != nil {
		return nil, "", nil, err
	}
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || strings.EqualFold(filepath.Ext(p), ".md") {
		return nil, "", nil, nil
	}
	return previewOne(ctx, arg, p, cwd)
}

// openRemoteSkill reads the one skill of a git source (owner/repo/path,
// a tree or git URL) or an archive URL without installing it; nil when arg
// is none of these.
func (f *Factory) openRemoteSkill(ctx context.Context, arg string) (*skill.Skill, string, func(), error) {
	_, isGit, _ := gitsource.ParseGit(arg)
	l := strings.ToLower(arg)
	if !isGit && !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "http://") {
		return nil, "", nil, nil
	}
	cwd, err := f.Cwd()
	if err != nil {
		return nil, "", nil, err
	}
	timeout := time.Duration(0)
	if cfg, err := f.Config(); err == nil {
		timeout = cfg.Git.Timeout
	}
	label := "url"
	if isGit {
		label = "git"
	}
	return previewOneWith(ctx, arg, gitsource.Redact(arg), label, install.Options{Sources: []string{arg}, Cwd: cwd, GitTimeout: timeout})
}

// previewOne reads the one skill a source holds (install's preview).
func previewOne(ctx context.Context, arg, display, cwd string) (*skill.Skill, string, func(), error) {
	return previewOneWith(ctx, arg, display, "archive", install.Options{Sources: []string{arg}, Cwd: cwd})
}

// previewOneWith previews o's one source; label is the skill's source as
// show prints it.
func previewOneWith(ctx context.Context, arg, p, label string, o install.Options) (*skill.Skill, string, func(), error) {
	prev, err := install.New(o).Preview(ctx)
	if err != nil {
		return nil, "", nil, err
	}
	if len(prev.Skills) != 1 {
		names := make([]string, len(prev.Skills))
		for i, v := range prev.Skills {
			names[i] = v.Name
		}
		prev.Close()
		return nil, "", nil, fmt.Errorf("%s holds %d skills (%s); list them with: skillctl install %s --list", arg, len(names), strings.Join(names, ", "), shellQuote(arg))
	}
	v := prev.Skills[0]
	if len(v.Problems) > 0 {
		prev.Close()
		return nil, "", nil, fmt.Errorf("%s: %s: %s", arg, v.Name, strings.Join(v.Problems, "; "))
	}
	s, err := skill.Load(v.Dir, skill.LoadOptions{Source: label})
	if err != nil {
		prev.Close()
		return nil, "", nil, err
	}
	display := p
	if v.Path != "." {
		display += "!/" + v.Path
	}
	return s, display, prev.Close, nil
}

func showRun(ctx context.Context, opts *showOptions) error {
	var s *skill.Skill
	var extra showExtra
	if opts.Open != nil {
		sk, display, closer, err := opts.Open(ctx, opts.Name)
		if err != nil {
			return err
		}
		if sk != nil {
			defer closer()
			s, extra.Display = sk, display
		}
	}
	if s == nil {
		var err error
		if s, err = opts.Resolve(ctx, opts.Name); err != nil {
			if !errors.Is(err, skill.ErrNotFound) || opts.OpenRemote == nil {
				return err
			}
			sk, display, closer, rerr := opts.OpenRemote(ctx, opts.Name)
			if rerr != nil {
				return rerr
			}
			if sk == nil {
				return err
			}
			defer closer()
			s, extra.Display = sk, display
		}
	}
	if extra.Display == "" {
		if opts.Describe != nil {
			extra = opts.Describe(s)
		}
	}
	out := opts.IO.Out
	switch {
	case opts.Raw:
		data, err := os.ReadFile(s.File)
		if err != nil {
			return err
		}
		_, err = out.Write(terminalText(opts.IO, data))
		return err
	case opts.File != "":
		f, err := skill.OpenFile(s.Dir, opts.File)
		if err != nil {
			return fmt.Errorf("show %s --file %s: %w", s.ID, opts.File, err)
		}
		defer f.Close()
		if opts.JSON {
			data, err := io.ReadAll(f)
			if err != nil {
				return err
			}
			fi, _ := f.Stat()
			rel, _ := skill.CheckRelPath(opts.File)
			return writeJSON(out, map[string]any{"skill": s.ID, "path": rel, "size": len(data),
				"type": skill.FileType(rel, fi.Mode()), "content": string(data)})
		}
		if opts.IO.IsStdoutTTY() {
			data, err := io.ReadAll(f)
			if err != nil {
				return err
			}
			_, err = out.Write(terminalText(opts.IO, data))
			return err
		}
		_, err = io.Copy(out, f)
		return err
	}
	files, err := skill.Files(s.Dir)
	if err != nil {
		return err
	}
	if opts.JSON {
		def := skill.DefinitionOf(s, files)
		def.Agents, def.Installed = extra.Agents, extra.Installed
		if extra.Display != "" {
			def.Path, def.File = extra.Display, ""
		}
		return writeJSON(out, def)
	}
	st := render.ForStdout(opts.IO)
	printShowHeader(out, st, s, extra)
	fmt.Fprintln(out)
	inv := skill.Inventory(files)
	fmt.Fprintf(out, "%s %s\n", st.Bold.Render("Files"), st.Faint.Render(fmt.Sprintf("(%d, %s)", inv.TotalFiles, skill.HumanSize(inv.TotalSizeBytes))))
	fmt.Fprintln(out, fileTree(safetext.Line(s.Name), files, st))
	fmt.Fprintf(out, "\n%s ~%d (SKILL.md, about 4 bytes a token)\n", st.Bold.Render("Tokens"), s.Tokens)
	for _, d := range s.Diagnostics {
		loc := ""
		if d.Line > 0 {
			loc = fmt.Sprintf(" (line %d)", d.Line)
		}
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s: %s%s\n", d.Rule, safetext.Line(d.Message), loc)
	}
	body := strings.TrimLeft(s.Body, "\n")
	if body != "" {
		fmt.Fprintf(out, "\n%s\n\n%s", st.Faint.Render("───"), safetext.Text(body))
		if !strings.HasSuffix(body, "\n") {
			fmt.Fprintln(out)
		}
	}
	return nil
}

func printShowHeader(out io.Writer, st *render.Styles, s *skill.Skill, x showExtra) {
	fmt.Fprintf(out, "%s %s\n", st.Header.Render(safetext.Line(s.Name)), st.Faint.Render("("+safetext.Line(s.ID)+")"))
	if s.Description != "" {
		fmt.Fprintln(out, render.Flatten(s.Description))
	}
	fmt.Fprintln(out)
	dir := s.Dir
	if x.Display != "" {
		dir = x.Display
	}
	rows := [][2]string{{"source", s.Source}, {"path", dir}, {"mode", s.EffectiveMode()}}
	if len(x.Agents) > 0 {
		rows = append(rows, [2]string{"agents", strings.Join(x.Agents, ", ")})
	}
	if p := x.Installed; p != nil {
		from := p.Location
		if p.SHA256 != "" {
			from += " (sha256 " + p.SHA256[:min(12, len(p.SHA256))] + ")"
		}
		if p.Commit != "" {
			from += " (commit " + p.Commit[:min(12, len(p.Commit))] + ")"
		}
		rows = append(rows, [2]string{"from", from}, [2]string{"installed", p.InstalledAt})
	}
	if s.License != "" {
		rows = append(rows, [2]string{"license", s.License})
	}
	if s.Exec.Version != "" {
		rows = append(rows, [2]string{"version", s.Exec.Version})
	}
	if s.Plugin != "" {
		rows = append(rows, [2]string{"plugin", s.Plugin})
	}
	for _, r := range rows {
		fmt.Fprintf(out, "  %s %s\n", st.Faint.Render(fmt.Sprintf("%-9s", r[0])), safetext.Line(r[1]))
	}
}

// fileTree renders files as a tree with sizes and types.
func fileTree(rootName string, files []skill.File, st *render.Styles) string {
	type node struct {
		t        *tree.Tree
		children map[string]*node
	}
	enum := tree.DefaultEnumerator
	newTree := func(label string) *tree.Tree {
		return tree.New().Root(label).Enumerator(enum).EnumeratorStyle(st.Faint.PaddingRight(1)).Indenter(tree.DefaultIndenter)
	}
	root := &node{t: newTree(rootName), children: map[string]*node{}}
	// Folders first is what people expect of a tree; keep files sorted within.
	sorted := append([]skill.File(nil), files...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	// Align sizes: each tree level indents by four cells.
	width := 0
	for _, f := range sorted {
		depth := strings.Count(f.Path, "/")
		width = max(width, depth*4+lipgloss.Width(safetext.Line(path.Base(f.Path))))
	}
	for _, f := range sorted {
		parts := strings.Split(f.Path, "/")
		cur := root
		for _, dir := range parts[:len(parts)-1] {
			n, ok := cur.children[dir]
			if !ok {
				n = &node{t: newTree(safetext.Line(dir) + "/"), children: map[string]*node{}}
				cur.children[dir] = n
				cur.t.Child(n.t)
			}
			cur = n
		}
		name := safetext.Line(parts[len(parts)-1])
		pad := max(0, width-(len(parts)-1)*4-lipgloss.Width(name))
		label := fmt.Sprintf("%s%s  %9s  %s", name, strings.Repeat(" ", pad), skill.HumanSize(f.Size), st.Faint.Render(f.Type))
		cur.t.Child(label)
	}
	return root.t.String()
}

// terminalText is data for stdout: as it is in a pipe, with control
// characters made visible on a terminal (SPEC §15).
func terminalText(ios *iostreams.IOStreams, data []byte) []byte {
	if !ios.IsStdoutTTY() {
		return data
	}
	return []byte(safetext.Text(string(data)))
}
