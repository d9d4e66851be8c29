package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
)

// archiveHeadBytes is how much of a non-executable script is read (for "#!").
const archiveHeadBytes = 2

// archiveDisplaySuffix separates an archive's path from the names inside it.
const archiveDisplaySuffix = "!"

// memEntry is one entry of an archive read in place: its metadata, and the
// content of SKILL.md files (other files keep only their first bytes).
type memEntry struct {
	name string
	mode fs.FileMode
	size int64
	data []byte
	// link is a symlink's target as written; hard a hardlink's target entry.
	link, hard string
}

// memFS is the tree of an archive held in memory (names, modes, sizes, and
// the SKILL.md contents); nothing is written to disk.
type memFS struct {
	files map[string]*memEntry
	dirs  map[string][]string // dir → sorted child names
}

// readArchive reads an archive in place through pkg/archive with install's
// options (its limits, setuid refused, every byte read and counted, so that
// sizes that lie are caught as install catches them) and returns its tree.
// Only SKILL.md files are kept whole; nothing is extracted.
func readArchive(ctx context.Context, file string) (*memFS, error) {
	m := &memFS{files: map[string]*memEntry{}, dirs: map[string][]string{".": nil}}
	_, err := archive.WalkFile(ctx, file, archive.Options{RefuseSetuid: true}, func(e *archive.Entry) error {
		switch e.Type {
		case archive.TypeDir:
			m.addDir(e.Name)
			return nil
		case archive.TypeSymlink:
			// Links stay inside the archive (checked by pkg/archive); they
			// count as present files, and must stay inside their skill
			// (checked per skill folder below).
			m.addFile(&memEntry{name: e.Name, mode: 0o644, link: e.Link})
			return nil
		case archive.TypeHardlink:
			m.addFile(&memEntry{name: e.Name, mode: 0o644, hard: e.Link})
			return nil
		}
		me := &memEntry{name: e.Name, mode: e.Mode, size: e.Size}
		base := path.Base(e.Name)
		wantAll := base == "SKILL.md" || base == "skill.md"
		wantHead := !wantAll && e.Mode&0o111 == 0 && (strings.HasPrefix(e.Name, "scripts/") || strings.Contains(e.Name, "/scripts/"))
		limit := int64(0)
		switch {
		case wantAll:
			limit = skill.MaxSkillMDSize + 1
		case wantHead:
			limit = archiveHeadBytes
		}
		rc, err := e.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, limit))
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, rc); err != nil {
			return err
		}
		me.data = data
		m.addFile(me)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for d := range m.dirs {
		sort.Strings(m.dirs[d])
	}
	return m, nil
}

func (m *memFS) addDir(name string) {
	if _, ok := m.dirs[name]; ok || name == "." {
		return
	}
	m.dirs[name] = nil
	parent := path.Dir(name)
	m.addDir(parent)
	m.dirs[parent] = append(m.dirs[parent], path.Base(name))
}

func (m *memFS) addFile(e *memEntry) {
	if _, dup := m.files[e.name]; dup {
		m.files[e.name] = e
		return
	}
	m.files[e.name] = e
	parent := path.Dir(e.name)
	m.addDir(parent)
	m.dirs[parent] = append(m.dirs[parent], path.Base(e.name))
}

// skillDirs lists the skill folders of the archive, found by the one
// finder's rules (skilltree.InList), sorted.
func (m *memFS) skillDirs() []string {
	names := make([]string, 0, len(m.files))
	for name := range m.files {
		names = append(names, name)
	}
	return skilltree.InList(names)
}

// Open implements fs.FS.
func (m *memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if e, ok := m.files[name]; ok {
		return &memFile{e: e, r: strings.NewReader(string(e.data))}, nil
	}
	if _, ok := m.dirs[name]; ok {
		return &memDir{m: m, name: name}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Stat implements fs.StatFS.
func (m *memFS) Stat(name string) (fs.FileInfo, error) {
	f, err := m.Open(name)
	if err != nil {
		return nil, err
	}
	return f.Stat()
}

// ReadDir implements fs.ReadDirFS.
func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if _, ok := m.dirs[name]; !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	d := &memDir{m: m, name: name}
	return d.ReadDir(-1)
}

type memInfo struct {
	name string
	mode fs.FileMode
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return i.mode }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.mode.IsDir() }
func (i memInfo) Sys() any           { return nil }

type memFile struct {
	e *memEntry
	r *strings.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	mode := f.e.mode
	if mode&fs.ModeSymlink != 0 {
		mode = mode&^fs.ModeSymlink | 0o644
	}
	return memInfo{name: path.Base(f.e.name), mode: mode, size: f.e.size}, nil
}
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	m    *memFS
	name string
	pos  int
}

func (d *memDir) Stat() (fs.FileInfo, error) {
	return memInfo{name: path.Base(d.name), mode: fs.ModeDir | 0o755}, nil
}
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *memDir) Close() error { return nil }

func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	names := d.m.dirs[d.name]
	rest := names[d.pos:]
	if n > 0 && len(rest) > n {
		rest = rest[:n]
	}
	out := make([]fs.DirEntry, 0, len(rest))
	for _, c := range rest {
		full := c
		if d.name != "." {
			full = d.name + "/" + c
		}
		var info fs.FileInfo
		if e, ok := d.m.files[full]; ok {
			info, _ = (&memFile{e: e}).Stat()
		} else {
			info = memInfo{name: c, mode: fs.ModeDir | 0o755}
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	d.pos += len(rest)
	if n > 0 && len(out) == 0 {
		return nil, io.EOF
	}
	return out, nil
}

// archiveTargets reads an archive and returns a target per skill folder in it.
func archiveTargets(ctx context.Context, file, display string) ([]*target, error) {
	m, err := readArchive(ctx, file)
	if err != nil {
		return nil, err
	}
	var out []*target
	for _, d := range m.skillDirs() {
		if err := m.linksStayIn(d); err != nil {
			return nil, err
		}
		var fsys fs.FS = m
		dirName := ""
		disp := display + archiveDisplaySuffix
		if d != "." {
			sub, err := fs.Sub(m, d)
			if err != nil {
				return nil, err
			}
			fsys = sub
			dirName = path.Base(d)
			disp += "/" + d
		}
		prefix := disp
		out = append(out, &target{
			fsys:    fsys,
			display: disp,
			join:    func(rel string) string { return prefix + "/" + rel },
			dirName: dirName,
		})
	}
	return out, nil
}

// linksStayIn refuses, as install does, a symlink below dir that resolves
// outside dir (through other links too) and a hardlink to a file outside it.
func (m *memFS) linksStayIn(dir string) error {
	within := func(p string) bool { return dir == "." || p == dir || strings.HasPrefix(p, dir+"/") }
	var names []string
	links := map[string]string{}
	for name, e := range m.files {
		if e.link != "" {
			links[strings.ToLower(name)] = e.link
		}
		if (e.link != "" || e.hard != "") && within(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		e := m.files[name]
		if e.hard != "" {
			if !within(e.hard) {
				return &archive.EntryError{Entry: name, Err: fmt.Errorf("%w: hardlink to %q leaves the skill folder %s", archive.ErrLinkOutside, e.hard, dir)}
			}
			continue
		}
		r, ok := archive.Resolve(links, name)
		if !ok || !within(r) {
			return &archive.EntryError{Entry: name, Err: fmt.Errorf("%w: symlink to %q leaves the skill folder %s", archive.ErrLinkOutside, e.link, dir)}
		}
	}
	return nil
}
