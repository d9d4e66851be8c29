package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/mholt/archives"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Archive limits, the same as install's defaults (SPEC §6).
const (
	MaxArchiveEntries    = 10000
	MaxArchiveTotalSize  = 512 << 20
	MaxArchiveEntrySize  = 100 << 20
	archiveHeadBytes     = 2
	archiveDisplaySuffix = "!"
)

// ArchiveError is an archive that cannot be read safely, or is not an archive
// skillctl reads.
type ArchiveError struct {
	File   string
	Entry  string
	Reason string
}

func (e *ArchiveError) Error() string {
	if e.Entry != "" {
		return fmt.Sprintf("%s: entry %q: %s", e.File, e.Entry, e.Reason)
	}
	return e.File + ": " + e.Reason
}

// errNotArchive is returned for files that are not archives at all.
var errNotArchive = errors.New("not an archive")

// identifyArchive reports whether the file is an archive of a format
// skillctl reads (zip, tar, and tar compressed with gzip, bzip2, xz or zstd),
// judged by its content.
func identifyArchive(ctx context.Context, f *os.File) (archives.Extractor, error) {
	format, _, err := archives.Identify(ctx, "", f)
	if _, serr := f.Seek(0, io.SeekStart); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		if errors.Is(err, archives.NoMatch) {
			return nil, errNotArchive
		}
		return nil, err
	}
	switch ft := format.(type) {
	case archives.Zip:
		return ft, nil
	case archives.Tar:
		return ft, nil
	case archives.CompressedArchive:
		if _, ok := ft.Extraction.(archives.Tar); ok {
			switch ft.Compression.(type) {
			case archives.Gz, archives.Bz2, archives.Xz, archives.Zstd:
				return ft, nil
			}
		}
		return nil, fmt.Errorf("%s archives are not accepted; use zip or tar (optionally gzip, bzip2, xz or zstd compressed)", strings.TrimPrefix(ft.Extension(), "."))
	}
	if e, ok := format.(interface{ Extension() string }); ok {
		return nil, fmt.Errorf("%s files are not accepted; use zip or tar (optionally gzip, bzip2, xz or zstd compressed)", strings.TrimPrefix(e.Extension(), "."))
	}
	return nil, errNotArchive
}

// memEntry is one entry of an archive read in place: its metadata, and the
// content of SKILL.md files (other files keep only their first bytes).
type memEntry struct {
	name string
	mode fs.FileMode
	size int64
	data []byte
}

// memFS is the tree of an archive held in memory (names, modes, sizes, and
// the SKILL.md contents); nothing is written to disk.
type memFS struct {
	files map[string]*memEntry
	dirs  map[string][]string // dir → sorted child names
}

// readArchive reads an archive in place, enforcing install's limits, and
// returns its tree. Nothing is extracted.
func readArchive(ctx context.Context, file string) (*memFS, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ex, err := identifyArchive(ctx, f)
	if err != nil {
		if errors.Is(err, errNotArchive) {
			return nil, err
		}
		return nil, &ArchiveError{File: file, Reason: err.Error()}
	}
	m := &memFS{files: map[string]*memEntry{}, dirs: map[string][]string{".": nil}}
	var count int
	var total int64
	refuse := func(entry, format string, a ...any) error {
		return &ArchiveError{File: file, Entry: entry, Reason: fmt.Sprintf(format, a...)}
	}
	err = ex.Extract(ctx, f, func(ctx context.Context, fi archives.FileInfo) error {
		count++
		if count > MaxArchiveEntries {
			return refuse("", "more than %d entries", MaxArchiveEntries)
		}
		raw := fi.NameInArchive
		name, ok := archiveName(raw)
		if !ok {
			return refuse(raw, "the name leaves the archive folder (absolute, or with '..')")
		}
		if name == "" || ignoredArchiveEntry(name) {
			return nil
		}
		mode := fi.Mode()
		switch {
		case mode&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeIrregular) != 0:
			return refuse(raw, "device files, FIFOs and sockets are not allowed")
		case mode.IsDir():
			m.addDir(name)
			return nil
		}
		if fi.LinkTarget != "" {
			target := fi.LinkTarget
			if mode&fs.ModeSymlink != 0 {
				target = path.Join(path.Dir(name), strings.ReplaceAll(target, "\\", "/"))
				if strings.HasPrefix(fi.LinkTarget, "/") {
					target = "../" + fi.LinkTarget
				}
			}
			if _, ok := archiveName(target); !ok {
				return refuse(raw, "a link pointing outside the archive (%s)", fi.LinkTarget)
			}
		}
		size := fi.Size()
		if size > MaxArchiveEntrySize {
			return refuse(raw, "%s unpacked, over the %s limit for one entry", skill.HumanSize(size), skill.HumanSize(MaxArchiveEntrySize))
		}
		total += size
		if total > MaxArchiveTotalSize {
			return refuse("", "more than %s unpacked", skill.HumanSize(MaxArchiveTotalSize))
		}
		e := &memEntry{name: name, mode: mode, size: size}
		base := path.Base(name)
		wantAll := base == "SKILL.md" || base == "skill.md"
		wantHead := !wantAll && mode&0o111 == 0 && (strings.HasPrefix(name, "scripts/") || strings.Contains(name, "/scripts/"))
		if (wantAll || wantHead) && mode.IsRegular() && fi.Open != nil {
			limit := int64(archiveHeadBytes)
			if wantAll {
				limit = skill.MaxSkillMDSize + 1
			}
			rc, err := fi.Open()
			if err != nil {
				return refuse(raw, "cannot read: %v", err)
			}
			data, err := io.ReadAll(io.LimitReader(rc, limit))
			rc.Close()
			if err != nil {
				return refuse(raw, "cannot read: %v", err)
			}
			e.data = data
		}
		m.addFile(e)
		return nil
	})
	if err != nil {
		var ae *ArchiveError
		if errors.As(err, &ae) {
			return nil, ae
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &ArchiveError{File: file, Reason: "cannot read the archive: " + err.Error()}
	}
	for d := range m.dirs {
		sort.Strings(m.dirs[d])
	}
	return m, nil
}

// archiveName cleans an entry name; ok is false for names that leave the
// archive root (absolute, drive letters, '..'), also written with '\'.
func archiveName(raw string) (string, bool) {
	n := strings.ReplaceAll(raw, "\\", "/")
	if strings.HasPrefix(n, "/") || (len(n) >= 2 && n[1] == ':') {
		return "", false
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return "", false
		}
	}
	c := path.Clean(n)
	if c == "." {
		return "", true
	}
	return c, true
}

func ignoredArchiveEntry(name string) bool {
	return name == "__MACOSX" || strings.HasPrefix(name, "__MACOSX/") || path.Base(name) == ".DS_Store"
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

// skillDirs lists the folders of the archive holding SKILL.md (or skill.md), sorted.
func (m *memFS) skillDirs() []string {
	set := map[string]bool{}
	for name := range m.files {
		if b := path.Base(name); b == "SKILL.md" || b == "skill.md" {
			set[path.Dir(name)] = true
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
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
