// Package skilltree is the one way skillctl finds skills: in an agent's
// skills folder, in a tree of folders, and in an archive's list of files.
// Every command that takes a PATH finds the same skills in it because it
// asks this package.
//
// The rules (docs/discovery.md):
//   - A skill is a folder holding SKILL.md (or a lone lowercase skill.md).
//   - Nesting: a SKILL.md inside a skill's folder is part of that skill; the
//     walk does not look below a skill folder.
//   - Skipped everywhere: .git, node_modules, __MACOSX and skillctl's own
//     .skillctl-* bookkeeping folders; in an agent's folder also every
//     hidden (dot) entry, as agents skip them; in a tree also what
//     .gitignore ignores (Options.GitIgnore, for validate).
//   - Symbolic links to folders: in an agent's folder (Children) a link to a
//     skill folder is followed, as agents follow them (other managers install
//     links), and a folder reached twice is found once. In a tree no link is
//     followed: a target inside the tree is reached by the walk itself, and
//     a link to a folder outside it is reported (ErrLinkOutside), never
//     followed. Links inside a skill folder are the skill's business.
package skilltree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Layout says how a folder holds its skills.
type Layout int

const (
	// Tree: the folder is a skill, or holds skills at any depth (a PATH
	// given to validate, index, list --path, …).
	Tree Layout = iota
	// Children: each direct child folder is a skill, as in an agent's
	// skills folder; a child without SKILL.md is reported.
	Children
)

// Options tune a walk.
type Options struct {
	Layout Layout
	// GitIgnore leaves out what .gitignore files ignore: those in the tree,
	// and those above it up to the top of its git repository. Tree walks only.
	GitIgnore bool
	// Workers bounds the parallel work (default: GOMAXPROCS).
	Workers int
	// Fast reads SKILL.md with the listing reader (see skill.ReadSkillFileAt).
	Fast bool
	// Exclude leaves out the folders it matches, and all below them.
	// Tree walks only.
	Exclude *Matcher
}

// Found is one skill folder, or one thing in the way of finding one.
type Found struct {
	// Dir is the folder as reached: the walked folder joined with Rel.
	Dir string
	// Rel is Dir relative to the walked folder, slash-separated ("." for itself).
	Rel string
	// Real is Dir with symbolic links resolved.
	Real string
	// File is the skill file's path ("" when there is none).
	File string
	// Data is the skill file's content, valid only during the visit; with
	// Options.Fast, only its frontmatter when the file is large. Size is
	// the file's size.
	Data []byte
	Size int64
	// dirfd is the walked root's open folder when hasfd, during the visit.
	dirfd int
	hasfd bool
	// Err is set when the folder could not be read or loaded: a skill file
	// that cannot be read (File set), a folder that cannot be listed, a
	// broken link (ErrBrokenLink), a child of an agent folder without
	// SKILL.md (ErrNoSkillFile), or a link leaving a tree (ErrLinkOutside:
	// not followed, reported so that nothing is dropped silently).
	Err error
}

// Errors a Found may carry, inside a *skill.LoadError naming the folder.
var (
	ErrNoSkillFile = skill.Mark(errors.New("no SKILL.md in the folder"), skill.ErrNotFound)
	ErrBrokenLink  = errors.New("broken symbolic link")
	ErrLinkLoop    = errors.New("symbolic link loop")
	ErrLinkOutside = errors.New("symbolic link to a folder outside the tree; not followed")
)

func problem(p string, err error) error {
	reason := err.Error()
	if errors.Is(err, ErrNoSkillFile) {
		reason = "no SKILL.md in the folder"
	}
	return &skill.LoadError{Path: p, Err: err, Reason: reason}
}

// Skipped reports whether f is a link that was not followed rather than a
// skill that failed to load.
// IsDir reports whether the skill folder holds a folder called name (during
// the visit, by a short path relative to the walked root).
func (f *Found) IsDir(name string) bool {
	if f.hasfd {
		return skill.IsDirAt(f.dirfd, relJoin(f.Rel, name), "")
	}
	return skill.IsDirAt(-1, "", filepath.Join(f.Dir, name))
}

func (f *Found) Skipped() bool { return errors.Is(f.Err, ErrLinkOutside) }

// SkipDir reports whether a folder of this name is never searched for skills.
func SkipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == "__MACOSX" || strings.HasPrefix(name, ".skillctl-")
}

// IsSkillFile reports whether a file name is a skill file (SKILL.md, or skill.md).
func IsSkillFile(name string) bool { return name == "SKILL.md" || name == "skill.md" }

// RootError is a folder to walk that cannot be read.
type RootError struct {
	Path string
	Err  error
}

func (e *RootError) Error() string {
	return fmt.Sprintf("cannot read %s: %s", e.Path, skill.ErrorReason(e.Err))
}
func (e *RootError) Unwrap() error { return e.Err }

// Walk finds the skills in dir as o.Layout says and calls visit for each, and
// for each problem, from several goroutines at once and in no set order
// (callers sort by Rel). A dir that names a SKILL.md file is its skill
// folder. Walk returns a *RootError wrapping fs.ErrNotExist when dir does
// not exist, a *RootError when it cannot be read, and ctx.Err() when the
// walk was cancelled.
func Walk(ctx context.Context, dir string, o Options, visit func(*Found)) error {
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		return &RootError{Path: dir, Err: err}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return &RootError{Path: dir, Err: err}
	}
	w := &walker{o: o, root: dir, rootReal: real, visit: visit, rootfd: -1}
	if o.GitIgnore && o.Layout == Tree && fi.IsDir() {
		w.ignore = rulesAbove(dir)
	}
	if !fi.IsDir() {
		if !IsSkillFile(filepath.Base(dir)) {
			return &RootError{Path: dir, Err: skill.Mark(errors.New("neither a folder nor a SKILL.md"), skill.ErrInvalid)}
		}
		w.root, w.rootReal = filepath.Dir(dir), filepath.Dir(real)
		buf := skill.NewReadBuf()
		if !w.probe(&Found{Dir: w.root, Rel: ".", Real: w.rootReal}, buf) {
			return &RootError{Path: dir, Err: fs.ErrNotExist}
		}
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.rootfd = skill.OpenDirFD(dir)
	defer skill.CloseDirFD(w.rootfd)
	buf := skill.NewReadBuf()
	if o.Layout == Tree && w.probe(&Found{Dir: dir, Rel: ".", Real: real}, buf) {
		return ctx.Err()
	}
	if o.Layout == Tree && w.ignore == nil && !o.GitIgnore {
		// The workers start on the first entries while the rest of a
		// large folder is still being read.
		return w.streamTop(ctx, dir)
	}
	ents, err := readDir(dir)
	if err != nil {
		return &RootError{Path: dir, Err: err}
	}
	p := newPool(ctx, o.Workers, w.run)
	w.top(p, ents)
	p.wait()
	return ctx.Err()
}

// streamTop reads the root of a tree in batches and hands each batch to
// the workers at once.
func (w *walker) streamTop(ctx context.Context, dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return &RootError{Path: dir, Err: err}
	}
	defer f.Close()
	p := newPool(ctx, w.o.Workers, w.run)
	top := &Found{Dir: w.root, Rel: ".", Real: w.rootReal}
	var rerr error
	for first := true; ; first = false {
		ents, err := f.ReadDir(512)
		if first {
			p.hold()
		}
		if len(ents) > 0 {
			w.push(p, top, ents, nil)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				rerr = &RootError{Path: dir, Err: err}
			}
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	p.release()
	p.wait()
	if rerr != nil {
		return rerr
	}
	return ctx.Err()
}

type walker struct {
	o        Options
	root     string
	rootReal string
	// rootfd is the root folder, open, so that files below it are opened
	// by short relative paths (-1: by full paths).
	rootfd int
	visit  func(*Found)
	ignore *ignoreRules // .gitignore rules above the walked folder
}

// top looks at the walked folder's entries. In an agent's folder links
// to folders are followed; in a tree they are handled as anywhere else.
func (w *walker) top(p *pool, ents []fs.DirEntry) {
	if w.o.Layout == Tree {
		w.push(p, &Found{Dir: w.root, Rel: ".", Real: w.rootReal}, ents, w.ignore)
		return
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	top := &Found{Dir: w.root, Rel: ".", Real: w.rootReal}
	plain := map[string]bool{}
	var jobs []job
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || w.skip(name) {
			continue
		}
		plain[name] = true
		jobs = append(jobs, job{parent: top, name: name})
	}
	linked := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		if e.Type()&fs.ModeSymlink == 0 || w.skip(name) {
			continue
		}
		dir := filepath.Join(w.root, name)
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			w.visit(&Found{Dir: dir, Rel: name, Err: linkError(dir, err)})
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue // a link to a file is not a skill
		}
		if (filepath.Dir(real) == w.rootReal && plain[filepath.Base(real)]) || linked[real] {
			continue // the same folder is found once
		}
		linked[real] = true
		jobs = append(jobs, job{parent: top, name: name, real: real})
	}
	p.push(jobs...)
}

// run looks at the folder of one job.
func (w *walker) run(p *pool, j job, buf *[]byte) {
	f := &Found{Dir: filepath.Join(j.parent.Dir, j.name), Rel: relJoin(j.parent.Rel, j.name), Real: j.real}
	if f.Real == "" {
		if j.parent.Real == j.parent.Dir {
			f.Real = f.Dir // no link on the way: one string for both
		} else {
			f.Real = filepath.Join(j.parent.Real, j.name)
		}
	}
	w.folder(p, f, buf, j.rules)
}

// relJoin is the slash path of name in the folder rel ("." is the top).
func relJoin(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

// skip reports whether an entry of an agent's folder is never a skill.
func (w *walker) skip(name string) bool {
	return SkipDir(name) || strings.HasPrefix(name, ".")
}

// folder handles a folder below the top: a skill, or (in a tree) a folder to look into.
func (w *walker) folder(p *pool, f *Found, buf *[]byte, rules *ignoreRules) {
	if w.probe(f, buf) {
		return
	}
	if w.o.Layout == Children {
		f.Err = problem(f.Dir, ErrNoSkillFile)
		w.visit(f)
		return
	}
	ents, err := readDir(f.Dir)
	if err != nil {
		f.Err = &skill.LoadError{Path: f.Dir, Err: err, Reason: "cannot read folder: " + skill.OSReason(err)}
		w.visit(f)
		return
	}
	w.push(p, f, ents, rules)
}

// push queues the folders below f (a folder of a tree that is not a skill)
// and reports the links in it that leave the tree. rules are the
// .gitignore rules that apply above f (when Options.GitIgnore is set).
func (w *walker) push(p *pool, f *Found, ents []fs.DirEntry, rules *ignoreRules) {
	if w.o.GitIgnore {
		for _, e := range ents {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				rules = rules.withFile(f.Dir)
				break
			}
		}
	}
	var jobs []job
	for _, e := range ents {
		name := e.Name()
		if SkipDir(name) {
			continue
		}
		isDir, isLink := e.IsDir(), e.Type()&fs.ModeSymlink != 0
		if !isDir && !isLink {
			continue
		}
		if rules != nil && rules.ignored(filepath.Join(f.Dir, name)) {
			continue
		}
		if w.o.Exclude != nil && w.o.Exclude.excludes(filepath.Join(f.Dir, name)) {
			continue
		}
		if isDir {
			jobs = append(jobs, job{parent: f, name: name, rules: rules})
			continue
		}
		dir := filepath.Join(f.Dir, name)
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || skill.Within(w.rootReal, real) {
			continue // not followed: broken, or reached by the walk
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		w.visit(&Found{Dir: dir, Rel: relJoin(f.Rel, name), Real: real, Err: problem(dir, ErrLinkOutside)})
	}
	p.push(jobs...)
}

// probe reads the folder's skill file and visits it; false when the folder
// holds none (no SKILL.md or skill.md, or a SKILL.md that is a folder).
func (w *walker) probe(f *Found, buf *[]byte) bool {
	for _, name := range []string{"SKILL.md", "skill.md"} {
		file := filepath.Join(f.Dir, name)
		err := skill.ReadSkillFileAt(w.rootfd, relJoin(f.Rel, name), file, w.o.Fast, buf, func(data []byte, size int64) error {
			f.File, f.Data, f.Size, f.dirfd, f.hasfd = file, data, size, w.rootfd, w.rootfd >= 0
			w.visit(f)
			f.Data, f.hasfd = nil, false
			return nil
		})
		if err == nil {
			return true
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		f.File, f.Err = file, err
		w.visit(f)
		return true
	}
	return false
}

func linkError(p string, err error) error {
	switch {
	case strings.Contains(err.Error(), "too many links"):
		return problem(p, ErrLinkLoop)
	case errors.Is(err, fs.ErrNotExist):
		return problem(p, ErrBrokenLink)
	}
	return &skill.LoadError{Path: p, Err: err, Reason: "cannot follow symbolic link: " + skill.OSReason(err)}
}

func readDir(dir string) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// InList returns the skill folders among an archive's file names
// (slash-separated, relative), by the same rules as a tree walk: a folder
// holding SKILL.md (or a lone skill.md), outermost only, nothing inside a
// skipped folder. "." is the archive's top. The result is sorted.
func InList(names []string) []string {
	files := map[string]bool{}
	var dirs []string
	for _, n := range names {
		n = strings.TrimPrefix(path.Clean(n), "./")
		if skippedPath(n) {
			continue
		}
		files[n] = true
	}
	seen := map[string]bool{}
	for n := range files {
		base := path.Base(n)
		if !IsSkillFile(base) {
			continue
		}
		d := path.Dir(n)
		if seen[d] {
			continue
		}
		seen[d] = true
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	if seen["."] {
		return []string{"."}
	}
	// An ancestor sorts before its descendants, so it is known when they come.
	var outer []string
	isOuter := map[string]bool{}
	for _, d := range dirs {
		nested := false
		for a := path.Dir(d); a != "." && !nested; a = path.Dir(a) {
			nested = isOuter[a]
		}
		if !nested {
			isOuter[d] = true
			outer = append(outer, d)
		}
	}
	return outer
}

// SkillFileIn is the skill file of folder dir among an archive's files:
// SKILL.md, else skill.md ("" when neither; dir "." is the top).
func SkillFileIn(files map[string]bool, dir string) string {
	for _, n := range []string{"SKILL.md", "skill.md"} {
		p := n
		if dir != "." && dir != "" {
			p = dir + "/" + n
		}
		if files[p] {
			return p
		}
	}
	return ""
}

func skippedPath(n string) bool {
	parts := strings.Split(n, "/")
	for _, p := range parts[:len(parts)-1] {
		if SkipDir(p) {
			return true
		}
	}
	return false
}
