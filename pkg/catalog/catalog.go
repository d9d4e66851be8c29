// Package catalog is discovery over the tiers of SPEC §3: the user, project,
// env, path and plugin folders of the agents in use, loaded through
// skilltree, with shadowing, and the lookups commands need on the result
// (Resolve, Suggest).
package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/config"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
)

// Options says where to look.
type Options struct {
	// Home is the user's home folder.
	Home string
	// Cwd is the working folder (project folders are found above it).
	Cwd string
	// Getenv reads the environment (SKILLCTL_PATH, CLAUDE_SKILLS_DIR,
	// CLAUDE_CONFIG_DIR, GOGC); nil reads the process's.
	Getenv func(string) string
	// Agents picks the agents whose folders are searched (default agents.DefaultLoad).
	Agents []string
	// ConfigPaths come from the config file's paths:, Paths from --path flags.
	ConfigPaths []string
	Paths       []string
	// DropBody keeps skills small (for listings).
	DropBody bool
	// Modes works out the mode a run of each skill would use
	// (skill.Skill.Mode), with DefaultMode (config run.defaultMode) as the
	// default; it costs a stat per skill that declares neither mode nor
	// entrypoint.
	Modes       bool
	DefaultMode string
}

// load says how discovery loads each skill.
type load struct {
	dropBody    bool
	modes       bool
	defaultMode string
	// names are the skill names loaded so far (with modes).
	mu    *sync.Mutex
	names map[string]bool
}

// firstOfName reports whether no skill of this name was loaded before.
func (l load) firstOfName(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.names[name] {
		return false
	}
	l.names[name] = true
	return true
}

// Root is a folder searched for skills.
type Root struct {
	Dir    string `json:"dir"`
	Source string `json:"source"`
	// Plugin is set for a plugin's skills folder.
	Plugin string `json:"plugin,omitempty"`
	// Agents lists the agents that load this folder (user and project tiers).
	Agents []string `json:"agents,omitempty"`
}

// Layout is how the root holds its skills: agent and plugin folders hold
// one skill per child folder; env and path folders are trees.
func (r Root) Layout() skilltree.Layout {
	if r.Source == skill.SourceEnv || r.Source == skill.SourcePath {
		return skilltree.Tree
	}
	return skilltree.Children
}

// Entry is one skill folder found by discovery, loaded or not.
type Entry struct {
	Name   string
	Source string
	Plugin string
	Dir    string
	// Skill is nil when the folder could not be loaded; Err says why.
	Skill *skill.Skill
	Err   error
	// ShadowedBy is the id of the skill that hides this one.
	ShadowedBy string
	// Agents are the agents that load the folder the skill is in (user
	// and project tiers; nil for the others).
	Agents []string
	real   string
	rel    string
	// root is the index of the root it was found in (precedence, with rel).
	root int
	// skipped: a link the finder did not follow (Err says why).
	skipped bool
}

// Skipped reports whether the entry is a symbolic link that was not
// followed (pkg/skilltree) rather than a skill folder.
func (e *Entry) Skipped() bool { return e.skipped }

// SkillDirs lists the folder of every skill found — effective, shadowed or
// broken — each once, in catalog order; links that were not followed are
// not skill folders and are left out.
func (c *Catalog) SkillDirs() []string {
	var dirs []string
	seen := map[string]bool{}
	for _, e := range c.Entries {
		if !e.skipped && !seen[e.Dir] {
			seen[e.Dir] = true
			dirs = append(dirs, e.Dir)
		}
	}
	return dirs
}

// ID is the entry's id (source:name or plugin:name).
func (e *Entry) ID() string {
	if e.Skill != nil {
		return e.Skill.ID
	}
	if e.Plugin != "" {
		return e.Plugin + ":" + e.Name
	}
	return e.Source + ":" + e.Name
}

// DisplayName is the name people use: plugin skills are <plugin>:<name>.
func (e *Entry) DisplayName() string {
	if e.Plugin != "" {
		return e.Plugin + ":" + e.Name
	}
	return e.Name
}

// RealDir is the entry's folder with symbolic links resolved, as discovery
// found it ("" when unknown).
func (e *Entry) RealDir() string { return e.real }

// key is what shadowing compares: plugin skills never collide with others.
func (e *Entry) key() string {
	if e.Plugin != "" {
		return "plugin\x00" + e.Plugin + ":" + skill.NameKey(e.Name)
	}
	return skill.NameKey(e.Name)
}

// ErrUntrusted: a skills folder owned by another user or writable by
// others, which is not loaded.
var ErrUntrusted = errors.New("untrusted folder")

// Problem is a skill (or root) that could not be loaded.
type Problem struct {
	Path   string `json:"path"`
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// Catalog is the result of discovery.
type Catalog struct {
	// Roots searched, lowest precedence first.
	Roots []Root
	// Entries holds every skill folder found, sorted by display name (plugin
	// skills as <plugin>:<name>), then lowest precedence first.
	Entries []*Entry
	// Warnings are what the user should hear that is not a broken skill:
	// names that collide under Unicode normalisation.
	Warnings []string
}

// Skills returns the effective skills (loaded and not shadowed), sorted by name.
func (c *Catalog) Skills() []*skill.Skill {
	var out []*skill.Skill
	for _, e := range c.Entries {
		if e.Skill != nil && e.ShadowedBy == "" {
			out = append(out, e.Skill)
		}
	}
	return out
}

// Broken returns the entries that could not be loaded.
func (c *Catalog) Broken() []*Entry {
	var out []*Entry
	for _, e := range c.Entries {
		if e.Err != nil {
			out = append(out, e)
		}
	}
	return out
}

// Problems returns the broken entries as problems.
func (c *Catalog) Problems() []Problem {
	var out []Problem
	for _, e := range c.Broken() {
		out = append(out, Problem{Path: e.Dir, Source: e.Source, Reason: skill.ErrorReason(e.Err)})
	}
	return out
}

// Roots lists the folders to search, lowest precedence first.
func Roots(o Options) []Root {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	names := o.Agents
	if len(names) == 0 {
		names = agents.DefaultLoad
	}
	var roots []Root
	seen := map[string]bool{}
	add := func(dir, source string, by []string) {
		if dir == "" {
			return
		}
		dir = filepath.Clean(dir)
		key := source + "\x00" + dir
		if seen[key] {
			return
		}
		seen[key] = true
		roots = append(roots, Root{Dir: dir, Source: source, Agents: by})
	}
	env := agents.Env{Home: o.Home, Getenv: getenv}
	for _, f := range agents.UserFolders(names, env) {
		add(f.Dir, skill.SourceUser, f.Agents)
	}
	// project: from the repository top down to the working folder
	if o.Cwd != "" {
		for _, dir := range agents.ProjectDirs(o.Cwd) {
			for _, f := range agents.ProjectFolders(names, dir) {
				add(f.Dir, skill.SourceProject, f.Agents)
			}
		}
	}
	for _, d := range filepath.SplitList(getenv("SKILLCTL_PATH")) {
		add(absFrom(o.Cwd, d), skill.SourceEnv, nil)
	}
	add(absFrom(o.Cwd, getenv("CLAUDE_SKILLS_DIR")), skill.SourceEnv, nil)
	// path: config first, flags last (flags win)
	for _, d := range o.ConfigPaths {
		add(absFrom(o.Cwd, d), skill.SourcePath, nil)
	}
	for _, d := range o.Paths {
		add(absFrom(o.Cwd, d), skill.SourcePath, nil)
	}
	if agents.LoadsPlugins(names) {
		roots = append(roots, pluginRoots(filepath.Join(env.ClaudeDir(), "plugins", "cache"))...)
	}
	return roots
}

func absFrom(cwd, p string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(h, p[2:])
		}
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// pluginRoots finds <cache>/<marketplace>/<plugin>/<version>/skills, newest version of each plugin.
func pluginRoots(cache string) []Root {
	markets, err := os.ReadDir(cache)
	if err != nil {
		return nil
	}
	var roots []Root
	for _, m := range markets {
		if !m.IsDir() || strings.HasPrefix(m.Name(), ".") {
			continue
		}
		plugins, err := os.ReadDir(filepath.Join(cache, m.Name()))
		if err != nil {
			continue
		}
		for _, p := range plugins {
			if !p.IsDir() || strings.HasPrefix(p.Name(), ".") {
				continue
			}
			versions, err := os.ReadDir(filepath.Join(cache, m.Name(), p.Name()))
			if err != nil {
				continue
			}
			var names []string
			for _, v := range versions {
				if v.IsDir() && !strings.HasPrefix(v.Name(), ".") {
					names = append(names, v.Name())
				}
			}
			if len(names) == 0 {
				continue
			}
			sort.Slice(names, func(i, j int) bool { return skill.CompareVersions(names[i], names[j]) < 0 })
			newest := names[len(names)-1]
			roots = append(roots, Root{Dir: filepath.Join(cache, m.Name(), p.Name(), newest, "skills"),
				Source: skill.SourcePlugin, Plugin: p.Name()})
		}
	}
	return roots
}

// gcPercent is the collector's target once a catalog is loaded: loading
// and then rendering a catalog allocate many small, short-lived objects
// (docs/benchmarks.md).
const gcPercent = 400

var gcTuned atomic.Bool

// Discover finds and loads every skill under the roots of o. It returns
// ctx.Err() when cancelled. The first Discover of a process makes the
// garbage collector run less often from then on (the process is about to
// work on what it loaded), unless GOGC is set.
func Discover(ctx context.Context, o Options) (*Catalog, error) {
	tuneGC(o.Getenv)
	return discoverRoots(ctx, Roots(o), load{dropBody: o.DropBody, modes: o.Modes, defaultMode: o.DefaultMode,
		mu: &sync.Mutex{}, names: map[string]bool{}})
}

// tuneGC makes the collector run less often from the first load of a
// catalog on, under a soft memory limit, unless GOGC (or GOMEMLIMIT) is
// set in the environment.
func tuneGC(getenv func(string) string) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("GOGC") == "" && gcTuned.CompareAndSwap(false, true) {
		debug.SetGCPercent(gcPercent)
		if getenv("GOMEMLIMIT") == "" {
			// A soft cap: the collector runs more often as the heap nears
			// it, so that a catalog of 100,000 skills stays well in memory.
			debug.SetMemoryLimit(memoryLimit)
		}
	}
}

// memoryLimit is the soft memory limit set with gcPercent.
const memoryLimit = 144 << 20

// DiscoverRoots loads the skills under the given roots (lowest precedence
// first), applies shadowing and reports what could not be loaded. A folder
// reached twice (through links, or as two roots) is loaded once, for the
// first root that reaches it.
func DiscoverRoots(ctx context.Context, roots []Root, dropBody bool) (*Catalog, error) {
	tuneGC(nil)
	return discoverRoots(ctx, roots, load{dropBody: dropBody})
}

func discoverRoots(ctx context.Context, roots []Root, how load) (*Catalog, error) {
	dropBody := how.dropBody
	cat := &Catalog{Roots: roots}
	var all []*Entry
	// One walk finds each real folder once; the real paths are compared
	// across roots only once a second root finds something.
	var reals map[string]bool
	for i := range roots {
		r := &roots[i]
		if why := config.Untrusted(r.Dir); why != "" {
			// SPEC §3: a skills folder of another user, or one others may
			// write to, is not loaded (as git's safe.directory).
			all = append(all, &Entry{Name: filepath.Base(r.Dir), Source: r.Source, Plugin: r.Plugin, Dir: r.Dir, root: i,
				Err: &skill.LoadError{Path: r.Dir, Err: ErrUntrusted, Reason: "not trusted, so not loaded: " + why}})
			continue
		}
		var mu sync.Mutex
		var found []*Entry
		err := skilltree.Walk(ctx, r.Dir, skilltree.Options{Layout: r.Layout(), Fast: dropBody}, func(f *skilltree.Found) {
			e := newEntry(r, f, how)
			mu.Lock()
			found = append(found, e)
			mu.Unlock()
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, fs.ErrNotExist) {
				continue // a folder that is not there holds no skills
			}
			found = append(found, &Entry{Name: filepath.Base(r.Dir), Source: r.Source, Plugin: r.Plugin, Dir: r.Dir,
				Err: &skill.LoadError{Path: r.Dir, Err: err, Reason: "cannot read skills folder: " + skill.OSReason(errors.Unwrap(err))}})
		}
		if reals == nil && len(all) > 0 && len(found) > 0 {
			reals = make(map[string]bool, len(all)+len(found))
			for _, e := range all {
				if e.real != "" {
					reals[e.real] = true
				}
			}
		}
		for _, e := range found {
			if reals != nil && e.real != "" {
				if reals[e.real] {
					continue // the same real folder is loaded once
				}
				reals[e.real] = true
			}
			e.root = i
			all = append(all, e)
		}
	}

	// Shadowing: of the entries with a key, the one of highest precedence
	// (precedes) wins. Names equal under Unicode normalisation (NFKC) are
	// one name.
	winner := make(map[string]*Entry, len(all))
	keys := make([]string, len(all))
	for i, e := range all {
		if e.Err == nil {
			keys[i] = e.key()
			if w, ok := winner[keys[i]]; !ok || w.precedes(e) {
				winner[keys[i]] = e
			}
		}
	}
	for i, e := range all {
		if e.Err == nil {
			if w := winner[keys[i]]; w != e {
				e.ShadowedBy = w.ID()
			}
		}
	}
	// Sorted by display name, then lowest precedence first; (root, rel) is
	// unique, so an unstable sort gives the same result every time.
	slices.SortFunc(all, func(x, y *Entry) int {
		if c := strings.Compare(x.DisplayName(), y.DisplayName()); c != 0 {
			return c
		}
		if x.root != y.root {
			return x.root - y.root
		}
		return strings.Compare(x.rel, y.rel)
	})
	for _, e := range all {
		if e.ShadowedBy != "" {
			if w := winner[e.key()]; w.Name != e.Name {
				cat.Warnings = append(cat.Warnings, fmt.Sprintf("%s shadows %s: their names %q and %q are the same after Unicode normalisation (NFKC)",
					w.ID(), e.ID(), w.Name, e.Name))
			}
		}
	}
	cat.Entries = all
	return cat, nil
}

// precedes reports whether e has lower precedence than o: an earlier
// root, or in one root an earlier path (SPEC §3: later roots, and nearer
// folders, win).
func (e *Entry) precedes(o *Entry) bool {
	if e.root != o.root {
		return e.root < o.root
	}
	return e.rel < o.rel
}

func newEntry(r *Root, f *skilltree.Found, how load) *Entry {
	name := filepath.Base(f.Dir)
	e := &Entry{Name: name, Source: r.Source, Plugin: r.Plugin, Dir: f.Dir, Agents: r.Agents, real: f.Real, rel: f.Rel}
	if f.Err != nil {
		e.Err = f.Err
		if f.Skipped() {
			e.real, e.skipped = "", true // not loaded: does not hide the folder elsewhere
		}
		return e
	}
	s, err := skill.LoadData(f.Dir, f.File, f.Data, skill.LoadOptions{Source: r.Source, Plugin: r.Plugin, DropBody: how.dropBody, FileSize: f.Size})
	if err != nil {
		e.Err = err
		return e
	}
	if how.modes {
		s.SetDefaultMode(how.defaultMode)
		// A skill works its mode out here, by a short path relative to the
		// root — unless it lives in a folder not named after it and is a
		// namesake of one loaded before (copies of one skill): then which
		// copy wins is known only once all are loaded, and EffectiveMode
		// works it out for those shown, so that shadowed copies cost no
		// look at their folders.
		if name == s.Name || how.firstOfName(s.Name) {
			s.Mode = s.RunModeProbe(how.defaultMode, func() bool { return f.IsDir("scripts") })
		}
	}
	e.Skill = s
	e.Name = s.Name
	return e
}

// Resolve finds a skill by id, by name, or by a path to a skill folder or its
// SKILL.md. A path is tried when arg contains a path separator or names an
// existing folder and no skill has that name. A broken skill gives its load error.
func (c *Catalog) Resolve(ctx context.Context, arg, cwd string) (*skill.Skill, error) {
	// id: the effective skill, else a shadowed one (the nearest of that id)
	var byID *Entry
	for _, e := range c.Entries {
		if e.ID() != arg {
			continue
		}
		if e.ShadowedBy == "" {
			return e.result()
		}
		if byID == nil || byID.precedes(e) {
			byID = e
		}
	}
	if byID != nil {
		return byID.result()
	}
	// name: non-plugin first, then a unique plugin skill
	for _, e := range c.Entries {
		if e.ShadowedBy == "" && e.Plugin == "" && e.Name == arg {
			return e.result()
		}
	}
	var plug []*Entry
	for _, e := range c.Entries {
		if e.ShadowedBy == "" && e.Plugin != "" && e.Name == arg {
			plug = append(plug, e)
		}
	}
	if len(plug) == 1 {
		return plug[0].result()
	}
	if len(plug) > 1 {
		var ids []string
		for _, e := range plug {
			ids = append(ids, e.ID())
		}
		return nil, fmt.Errorf("%q is ambiguous: %s", arg, strings.Join(ids, ", "))
	}
	// folder name: install names a skill's folder after its name as a slug
	// ("Toggl Automation" lives in toggl-automation/)
	var byFolder *Entry
	for _, e := range c.Entries {
		if e.ShadowedBy == "" && e.Plugin == "" && e.Skill != nil && filepath.Base(e.Dir) == arg {
			if byFolder != nil {
				byFolder = nil
				break
			}
			byFolder = e
		}
	}
	if byFolder != nil && !existsDir(absFrom(cwd, arg)) {
		return byFolder.result()
	}
	// path
	if LooksLikePath(arg) || existsDir(absFrom(cwd, arg)) {
		return LoadPath(ctx, absFrom(cwd, arg))
	}
	return nil, &skill.NotFoundError{What: "skill", Name: arg, Suggestions: c.Suggest(arg)}
}

func (e *Entry) result() (*skill.Skill, error) {
	if e.Err != nil {
		return nil, fmt.Errorf("skill %s cannot be loaded: %w", e.ID(), e.Err)
	}
	return e.Skill, nil
}

func existsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Summary describes the entry in listings (list --json).
func (e *Entry) Summary() skill.Summary {
	if e.Skill == nil {
		return skill.Summary{Name: e.Name, ID: e.ID(), Source: e.Source, Plugin: e.Plugin, Path: e.Dir, Agents: e.Agents,
			Status: skill.StatusBroken, Error: skill.ErrorReason(e.Err)}
	}
	s := skill.SkillSummary(e.Skill)
	s.Agents = e.Agents
	if e.ShadowedBy != "" {
		s.Status = skill.StatusShadowed
		s.ShadowedBy = e.ShadowedBy
	}
	return s
}

// Suggest returns up to three skill names or ids close to arg.
func (c *Catalog) Suggest(arg string) []string {
	var names []string
	seen := map[string]bool{}
	for _, e := range c.Entries {
		if e.ShadowedBy != "" {
			continue
		}
		name := e.Name
		if e.Plugin != "" {
			name = e.ID()
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return skill.Closest(arg, names)
}

// LoadPath loads the skill at a path to a skill folder or to its SKILL.md,
// found as pkg/skilltree finds skills: a folder holding skills below it is a
// *skilltree.NotOneSkillError naming them.
func LoadPath(ctx context.Context, p string) (*skill.Skill, error) {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &skill.NotFoundError{What: "path", Name: p}
		}
		return nil, err
	}
	if !fi.IsDir() && !skilltree.IsSkillFile(filepath.Base(p)) {
		return nil, skill.Mark(fmt.Errorf("%s is neither a skill folder nor a SKILL.md", p), skill.ErrInvalid)
	}
	dir, err := skilltree.One(ctx, p, p)
	if err != nil {
		var one *skilltree.NotOneSkillError
		if errors.As(err, &one) && len(one.Skills) == 0 {
			return nil, &skill.NotFoundError{What: "SKILL.md", Name: p, Detail: "no SKILL.md in " + p}
		}
		return nil, err
	}
	return skill.Load(dir, skill.LoadOptions{Source: skill.SourcePath})
}

// LooksLikePath reports whether a command argument names a path rather
// than a skill: it holds a path separator, is . or .., or ends in .md.
func LooksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || arg == "." || arg == ".." || strings.HasSuffix(strings.ToLower(arg), ".md")
}

// Find finds a skill by id, name or path. A path is loaded without
// discovering anything else; a name or id is resolved in the catalog of o.
func Find(ctx context.Context, o Options, arg string) (*skill.Skill, error) {
	if LooksLikePath(arg) {
		return LoadPath(ctx, absFrom(o.Cwd, arg))
	}
	cat, err := Discover(ctx, o)
	if err != nil {
		return nil, err
	}
	return cat.Resolve(ctx, arg, o.Cwd)
}
