package skill

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Agent folder sets.
const (
	AgentClaude   = "claude"
	AgentAgents   = "agents"
	AgentCodex    = "codex"
	AgentOpenCode = "opencode"
)

// Agents lists the agent folder sets skillctl knows.
var Agents = []string{AgentClaude, AgentAgents, AgentCodex, AgentOpenCode}

// DefaultAgents is used when neither --agent nor config agents: are given.
var DefaultAgents = []string{AgentClaude, AgentAgents}

// DiscoverOptions says where to look.
type DiscoverOptions struct {
	// Home is the user's home folder.
	Home string
	// Cwd is the working folder (project folders are found above it).
	Cwd string
	// Getenv reads the environment (SKILLCTL_PATH, CLAUDE_SKILLS_DIR, CLAUDE_CONFIG_DIR).
	Getenv func(string) string
	// Agents picks the agent folder sets (default claude, agents).
	Agents []string
	// ConfigPaths come from the config file's paths:, Paths from --path flags.
	ConfigPaths []string
	Paths       []string
	// DropBody keeps skills small (for listings).
	DropBody bool
}

// Root is a folder whose direct children are skills.
type Root struct {
	Dir    string `json:"dir"`
	Source string `json:"source"`
	// Plugin is set for a plugin's skills folder.
	Plugin string `json:"plugin,omitempty"`
	// Self is true when Dir is itself a skill folder (a --path or env entry naming one skill).
	Self bool `json:"-"`
}

// Entry is one skill folder found by discovery, loaded or not.
type Entry struct {
	Name   string
	Source string
	Plugin string
	Dir    string
	// Skill is nil when the folder could not be loaded; Err says why.
	Skill *Skill
	Err   error
	// ShadowedBy is the id of the skill that hides this one.
	ShadowedBy string
	real       string
	order      int
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
		return "plugin\x00" + e.Plugin + ":" + e.Name
	}
	return e.Name
}

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
}

// Skills returns the effective skills (loaded and not shadowed), sorted by name.
func (c *Catalog) Skills() []*Skill {
	var out []*Skill
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
		out = append(out, Problem{Path: e.Dir, Source: e.Source, Reason: ErrorReason(e.Err)})
	}
	return out
}

// ErrorReason is a one-line reason for a load error, without the path prefix
// when the error already names it.
func ErrorReason(err error) string {
	var le *LoadError
	if errors.As(err, &le) && le.Reason != "" {
		return le.Reason
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		msg := pe.Msg
		if pe.Line > 0 {
			msg = fmt.Sprintf("line %d: %s", pe.Line, msg)
		}
		return msg
	}
	return err.Error()
}

// Roots lists the folders to search, lowest precedence first.
func Roots(o DiscoverOptions) []Root {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	agents := o.Agents
	if len(agents) == 0 {
		agents = DefaultAgents
	}
	has := map[string]bool{}
	for _, a := range agents {
		has[a] = true
	}
	var roots []Root
	seen := map[string]bool{}
	add := func(dir, source string) {
		if dir == "" {
			return
		}
		dir = filepath.Clean(dir)
		key := source + "\x00" + dir
		if seen[key] {
			return
		}
		seen[key] = true
		roots = append(roots, Root{Dir: dir, Source: source})
	}

	claudeDir := filepath.Join(o.Home, ".claude")
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		claudeDir = d
	}
	// user
	if has[AgentClaude] || has[AgentOpenCode] {
		add(filepath.Join(claudeDir, "skills"), SourceUser)
	}
	if has[AgentAgents] || has[AgentOpenCode] {
		add(filepath.Join(o.Home, ".agents", "skills"), SourceUser)
	}
	if has[AgentCodex] {
		add(filepath.Join(o.Home, ".codex", "skills"), SourceUser)
	}
	if has[AgentOpenCode] {
		add(filepath.Join(o.Home, ".config", "opencode", "skills"), SourceUser)
	}
	// project: from the repository top down to the working folder
	if o.Cwd != "" {
		for _, dir := range projectDirs(o.Cwd) {
			if has[AgentClaude] || has[AgentOpenCode] {
				add(filepath.Join(dir, ".claude", "skills"), SourceProject)
			}
			if has[AgentAgents] || has[AgentCodex] || has[AgentOpenCode] {
				add(filepath.Join(dir, ".agents", "skills"), SourceProject)
			}
			if has[AgentOpenCode] {
				add(filepath.Join(dir, ".opencode", "skills"), SourceProject)
			}
		}
	}
	// env
	for _, d := range filepath.SplitList(getenv("SKILLCTL_PATH")) {
		add(absFrom(o.Cwd, d), SourceEnv)
	}
	add(absFrom(o.Cwd, getenv("CLAUDE_SKILLS_DIR")), SourceEnv)
	// path: config first, flags last (flags win)
	for _, d := range o.ConfigPaths {
		add(absFrom(o.Cwd, d), SourcePath)
	}
	for _, d := range o.Paths {
		add(absFrom(o.Cwd, d), SourcePath)
	}
	// plugin
	if has[AgentClaude] {
		roots = append(roots, pluginRoots(filepath.Join(claudeDir, "plugins", "cache"))...)
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

// RepoTop is the nearest ancestor of dir holding .git, or "" when there is none.
func RepoTop(dir string) string {
	d := filepath.Clean(dir)
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// projectDirs lists the folders from the repository top (or the filesystem
// root) down to cwd, farthest first.
func projectDirs(cwd string) []string {
	cwd = filepath.Clean(cwd)
	top := RepoTop(cwd)
	var dirs []string
	d := cwd
	for {
		dirs = append(dirs, d)
		if d == top {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
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
			sort.Slice(names, func(i, j int) bool { return CompareVersions(names[i], names[j]) < 0 })
			newest := names[len(names)-1]
			roots = append(roots, Root{Dir: filepath.Join(cache, m.Name(), p.Name(), newest, "skills"),
				Source: SourcePlugin, Plugin: p.Name()})
		}
	}
	return roots
}

// CompareVersions orders version strings: numeric dot-separated parts compare
// as numbers (1.10 > 1.9), a leading v is ignored, the rest compares as text.
func CompareVersions(a, b string) int {
	pa := strings.FieldsFunc(strings.TrimPrefix(a, "v"), func(r rune) bool { return r == '.' || r == '-' || r == '+' })
	pb := strings.FieldsFunc(strings.TrimPrefix(b, "v"), func(r rune) bool { return r == '.' || r == '-' || r == '+' })
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil:
			if na != nb {
				if na < nb {
					return -1
				}
				return 1
			}
		case ea == nil:
			return 1 // release (number) after pre-release text
		case eb == nil:
			return -1
		default:
			if c := strings.Compare(pa[i], pb[i]); c != 0 {
				return c
			}
		}
	}
	// 1.0.0 > 1.0.0-beta (a pre-release tail), 1.0.1 > 1.0
	if len(pa) != len(pb) {
		longer, sign := pa, 1
		if len(pb) > len(pa) {
			longer, sign = pb, -1
		}
		if _, err := strconv.Atoi(longer[min(len(pa), len(pb))]); err != nil {
			sign = -sign
		}
		return sign
	}
	return strings.Compare(a, b)
}

// candidate is a folder that should hold a skill.
type candidate struct {
	root *Root
	// dir and real are left empty for plain child folders (the common case)
	// and derived by the worker that loads them: root.Dir/name, rootReal/name.
	dir      string
	real     string
	rootReal string
	name     string
	err      error
	order    int
}

// seenFolders makes sure each real folder is loaded once. Plain child
// folders of a root are not recorded one by one: a root's real path stands
// for all of them, and only folders reached through links (or roots naming
// one skill) are recorded with their parents.
type seenFolders struct {
	roots       map[string]bool // real paths of roots whose children were taken
	reals       map[string]bool // real folders reached through a link or named directly
	linkParents map[string]bool // parents of the folders in reals
}

func (s *seenFolders) claimLinked(real string) bool {
	parent, base := filepath.Dir(real), filepath.Base(real)
	if s.roots[parent] && !skipRootChild(base) {
		if fi, err := os.Lstat(real); err == nil && fi.IsDir() {
			return false // a plain child of a root already taken
		}
	}
	if s.reals[real] {
		return false
	}
	s.reals[real] = true
	s.linkParents[parent] = true
	return true
}

func skipRootChild(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "__MACOSX"
}

// Discover finds and loads every skill under the roots of o.
func Discover(ctx context.Context, o DiscoverOptions) *Catalog {
	return DiscoverRoots(ctx, Roots(o), o.DropBody)
}

// DiscoverRoots loads the skills under the given roots (lowest precedence
// first), applies shadowing and reports what could not be loaded.
func DiscoverRoots(ctx context.Context, roots []Root, dropBody bool) *Catalog {
	cat := &Catalog{Roots: roots}
	var cands []candidate
	seen := &seenFolders{roots: map[string]bool{}, reals: map[string]bool{}, linkParents: map[string]bool{}}
	for i := range roots {
		cands = appendCandidates(cands, &roots[i], seen)
	}
	entries := make([]*Entry, len(cands))
	workers := runtime.GOMAXPROCS(0)
	if workers > len(cands) {
		workers = len(cands)
	}
	// Workers take the next index with an atomic counter: no channel
	// hand-offs, which cost more than reading a small file.
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := newReadBuf()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cands) || ctx.Err() != nil {
					return
				}
				entries[i] = loadCandidate(cands[i], dropBody, buf)
			}
		}()
	}
	wg.Wait()

	// Shadowing: the last loaded entry with a key (highest precedence) wins.
	var kept []*Entry
	winner := map[string]*Entry{}
	for _, e := range entries {
		if e == nil {
			continue
		}
		kept = append(kept, e)
		if e.Err == nil {
			winner[e.key()] = e
		}
	}
	for _, e := range kept {
		if w := winner[e.key()]; e.Err == nil && w != e {
			e.ShadowedBy = w.ID()
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i].DisplayName(), kept[j].DisplayName()
		if a != b {
			return a < b
		}
		return kept[i].order < kept[j].order
	})
	cat.Entries = kept
	return cat
}

func appendCandidates(cands []candidate, r *Root, seen *seenFolders) []candidate {
	rootReal, err := filepath.EvalSymlinks(r.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return cands
		}
		return append(cands, candidate{root: r, dir: r.Dir, name: filepath.Base(r.Dir), err: &LoadError{Path: r.Dir, Err: err, Reason: "cannot read skills folder: " + describeOSError(err)}, order: len(cands)})
	}
	// A --path or env folder may name one skill directly.
	if r.Source == SourceEnv || r.Source == SourcePath {
		if _, _, err := SkillFileName(r.Dir); err == nil {
			r.Self = true
			if !seen.claimLinked(rootReal) {
				return cands
			}
			return append(cands, candidate{root: r, dir: r.Dir, real: rootReal, name: filepath.Base(r.Dir), order: len(cands)})
		}
	}
	f, err := os.Open(r.Dir)
	var ents []fs.DirEntry
	if err == nil {
		ents, err = f.ReadDir(-1)
		f.Close()
	}
	if err != nil {
		return append(cands, candidate{root: r, dir: r.Dir, name: filepath.Base(r.Dir), err: &LoadError{Path: r.Dir, Err: err, Reason: "cannot read skills folder: " + describeOSError(err)}, order: len(cands)})
	}
	// Names in order, so that results never depend on the directory's order.
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	plainTaken := seen.roots[rootReal] // every plain child was taken by an earlier root
	checkPlain := seen.linkParents[rootReal]
	seen.roots[rootReal] = true
	for _, e := range ents {
		name := e.Name()
		if skipRootChild(name) {
			continue
		}
		switch {
		case e.IsDir():
			if plainTaken || (checkPlain && seen.reals[filepath.Join(rootReal, name)]) {
				continue // the same real folder is loaded once
			}
			cands = append(cands, candidate{root: r, rootReal: rootReal, name: name, order: len(cands)})
		case e.Type()&fs.ModeSymlink != 0:
			dir := filepath.Join(r.Dir, name)
			c := candidate{root: r, dir: dir, name: name, order: len(cands)}
			real, err := filepath.EvalSymlinks(dir)
			if err != nil {
				reason := "broken symbolic link"
				if strings.Contains(err.Error(), "too many links") {
					reason = "symbolic link loop"
				} else if !errors.Is(err, fs.ErrNotExist) {
					reason = "cannot follow symbolic link: " + describeOSError(err)
				}
				c.err = &LoadError{Path: dir, Err: err, Reason: reason}
				cands = append(cands, c)
				continue
			}
			fi, err := os.Stat(real)
			if err != nil || !fi.IsDir() {
				continue // a link to a file is not a skill
			}
			if !seen.claimLinked(real) {
				continue // the same real folder is loaded once
			}
			c.real = real
			cands = append(cands, c)
		}
		// plain files (README.md, the lock file) are not skills
	}
	return cands
}

func loadCandidate(c candidate, dropBody bool, buf *[]byte) *Entry {
	if c.dir == "" {
		c.dir = filepath.Join(c.root.Dir, c.name)
		c.real = filepath.Join(c.rootReal, c.name)
	}
	e := &Entry{Name: c.name, Source: c.root.Source, Plugin: c.root.Plugin, Dir: c.dir, real: c.real, order: c.order}
	if c.err != nil {
		e.Err = c.err
		return e
	}
	s, err := Load(c.dir, LoadOptions{Source: c.root.Source, Plugin: c.root.Plugin, DropBody: dropBody, buf: buf})
	if err != nil {
		e.Err = err
		return e
	}
	e.Skill = s
	e.Name = s.Name
	return e
}

// Resolve finds a skill by id, by name, or by a path to a skill folder or its
// SKILL.md. A path is tried when arg contains a path separator or names an
// existing folder and no skill has that name. A broken skill gives its load error.
func (c *Catalog) Resolve(arg, cwd string) (*Skill, error) {
	// id: the effective skill, else a shadowed one (the nearest of that id)
	var byID *Entry
	for _, e := range c.Entries {
		if e.ID() != arg {
			continue
		}
		if e.ShadowedBy == "" {
			return e.result()
		}
		if byID == nil || e.order > byID.order {
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
	// path
	if looksLikePath(arg) || existsDir(absFrom(cwd, arg)) {
		return LoadPath(absFrom(cwd, arg))
	}
	return nil, &NotFoundError{What: "skill", Name: arg, Suggestions: c.Suggest(arg)}
}

func (e *Entry) result() (*Skill, error) {
	if e.Err != nil {
		return nil, fmt.Errorf("skill %s cannot be loaded: %w", e.ID(), e.Err)
	}
	return e.Skill, nil
}

func looksLikePath(s string) bool {
	return strings.ContainsAny(s, `/\`) || s == "." || s == ".." || strings.HasSuffix(strings.ToLower(s), ".md")
}

func existsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// LoadPath loads the skill at a path to a skill folder or to its SKILL.md.
func LoadPath(p string) (*Skill, error) {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &NotFoundError{What: "path", Name: p}
		}
		return nil, err
	}
	dir := p
	if !fi.IsDir() {
		base := filepath.Base(p)
		if base != "SKILL.md" && base != "skill.md" {
			return nil, fmt.Errorf("%s is neither a skill folder nor a SKILL.md: %w", p, ErrInvalid)
		}
		dir = filepath.Dir(p)
	}
	s, err := Load(dir, LoadOptions{Source: SourcePath})
	if err != nil {
		var le *LoadError
		if errors.As(err, &le) && errors.Is(err, ErrNotFound) {
			return nil, &NotFoundError{What: "SKILL.md", Name: dir, Detail: "no SKILL.md in " + dir}
		}
		return nil, err
	}
	return s, nil
}

// NotFoundError is a skill, path or file that does not exist, with close
// names to suggest.
type NotFoundError struct {
	What        string
	Name        string
	Detail      string
	Suggestions []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no %s named %q", e.What, e.Name)
	if e.What == "path" {
		msg = fmt.Sprintf("%s does not exist", e.Name)
	}
	if e.Detail != "" {
		msg = e.Detail
	}
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	return msg
}

func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Suggest returns up to three skill names or ids close to arg.
func (c *Catalog) Suggest(arg string) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	seen := map[string]bool{}
	la := strings.ToLower(arg)
	for _, e := range c.Entries {
		if e.ShadowedBy != "" {
			continue
		}
		name := e.Name
		if e.Plugin != "" {
			name = e.ID()
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		ln := strings.ToLower(name)
		d := levenshtein(la, ln)
		limit := max(2, len([]rune(arg))/3)
		if d <= limit || (len(la) >= 3 && strings.Contains(ln, la)) {
			cs = append(cs, cand{name, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
