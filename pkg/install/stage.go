package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillctl/skillctl/internal/ctxio"
	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/skill"
)

// staged is what unpacking one source left in its staging tree.
type staged struct {
	dir string // the tree's folder
	// files and dirs hold slash paths of what was written; sums the
	// sha256 (hex) of each file as it was written, and modes its mode.
	files map[string]bool
	dirs  map[string]bool
	sums  map[string]string
	modes map[string]fs.FileMode
	sizes map[string]int64
	// symlinks and hardlinks map an entry's path to its raw name and target.
	symlinks  map[string]linkInfo
	hardlinks map[string]linkInfo
	// ignored counts entries left out on purpose (__MACOSX, .DS_Store, clutter of folders).
	ignored int
	// unsafe are entries of a folder source that were not copied because
	// they are unsafe (links out, devices, setuid files): the skill that
	// holds one is refused, not the whole source.
	unsafe  map[string]error
	entries int
	bytes   int64
}

// refuse records an unsafe entry of a folder source.
func (st *staged) refuse(name string, err error) {
	if st.unsafe == nil {
		st.unsafe = map[string]error{}
	}
	st.unsafe[name] = err
}

type linkInfo struct {
	raw    string
	target string
}

func newStaged(dir string) *staged {
	return &staged{dir: dir, files: map[string]bool{}, dirs: map[string]bool{}, sums: map[string]string{}, modes: map[string]fs.FileMode{}, sizes: map[string]int64{},
		symlinks: map[string]linkInfo{}, hardlinks: map[string]linkInfo{}}
}

// stageWriter writes checked entries into a tree through os.Root, so that
// nothing can land outside it.
type stageWriter struct {
	ctx      context.Context
	root     *os.Root
	st       *staged
	buf      []byte
	hash     hash.Hash
	sum      [sha256.Size]byte
	progress func(files int, bytes int64)
}

func (w *stageWriter) mkdirParents(name string) error {
	parent := path.Dir(name)
	if parent == "." || w.st.dirs[parent] {
		return nil
	}
	if err := w.root.MkdirAll(filepath.FromSlash(parent), 0o755); err != nil {
		return err
	}
	for p := parent; p != "." && !w.st.dirs[p]; p = path.Dir(p) {
		w.st.dirs[p] = true
	}
	return nil
}

func (w *stageWriter) dir(name string) error {
	if err := w.mkdirParents(name); err != nil {
		return err
	}
	if !w.st.dirs[name] {
		if err := w.root.Mkdir(filepath.FromSlash(name), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		w.st.dirs[name] = true
	}
	return nil
}

func (w *stageWriter) file(name string, mode fs.FileMode, r io.Reader) error {
	if err := w.mkdirParents(name); err != nil {
		return err
	}
	f, err := w.root.OpenFile(filepath.FromSlash(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	// The content is hashed as it is written: the tree's digest needs no
	// second read (treeOf).
	w.hash.Reset()
	n, err := io.CopyBuffer(onlyWriter{io.MultiWriter(f, w.hash)}, ctxio.Reader(w.ctx, r), w.buf)
	if err == nil && umaskChanges(mode) {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	w.st.files[name] = true
	w.st.sums[name] = hex.EncodeToString(w.hash.Sum(w.sum[:0]))
	w.st.modes[name] = mode
	w.st.sizes[name] = n
	w.st.entries++
	w.st.bytes += n
	if w.progress != nil {
		w.progress(w.st.entries, w.st.bytes)
	}
	return nil
}

// onlyWriter hides ReadFrom so that CopyBuffer uses our buffer and the
// counting reader sees every read.
type onlyWriter struct{ io.Writer }

func (w *stageWriter) symlink(name, target, raw string) error {
	if err := w.mkdirParents(name); err != nil {
		return err
	}
	if err := w.root.Symlink(filepath.FromSlash(target), filepath.FromSlash(name)); err != nil {
		return err
	}
	w.st.symlinks[name] = linkInfo{raw: raw, target: target}
	return nil
}

// hardlink is written as a copy of its target, which is already staged.
func (w *stageWriter) hardlink(name, target, raw string) error {
	src, err := w.root.Open(filepath.FromSlash(target))
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	if err := w.file(name, fi.Mode().Perm(), src); err != nil {
		return err
	}
	w.st.hardlinks[name] = linkInfo{raw: raw, target: target}
	return nil
}

// stageArchive unpacks the archive file into dir.
func stageArchive(ctx context.Context, file, dir string, opts archive.Options, progress func(int, int64)) (*staged, error) {
	st := newStaged(dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	w := &stageWriter{ctx: ctx, root: root, st: st, buf: make([]byte, 256<<10), hash: sha256.New(), progress: progress}
	opts.RefuseSetuid = true
	_, err = archive.WalkFile(ctx, file, opts, func(e *archive.Entry) error {
		var err error
		switch e.Type {
		case archive.TypeDir:
			err = w.dir(e.Name)
		case archive.TypeFile:
			var rc io.ReadCloser
			if rc, err = e.Open(); err == nil {
				err = w.file(e.Name, e.Mode, rc)
				rc.Close()
			}
		case archive.TypeSymlink:
			err = w.symlink(e.Name, e.Link, e.RawName)
		case archive.TypeHardlink:
			err = w.hardlink(e.Name, e.Link, e.RawName)
		}
		if err != nil {
			var ee *archive.EntryError
			if errors.As(err, &ee) {
				return err
			}
			return &archive.EntryError{Entry: e.RawName, Err: err}
		}
		return nil
	})
	return st, err
}

// stageFolder copies a skill folder into dir with the same checks as an
// archive: only files, folders and links that stay inside; the same caps.
// Clutter that pack leaves out (.git, node_modules, __pycache__, *.pyc,
// .DS_Store) and __MACOSX are left out here too.
func stageFolder(ctx context.Context, src, dir string, limits archive.Limits, progress func(int, int64)) (*staged, error) {
	st := newStaged(dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	w := &stageWriter{ctx: ctx, root: root, st: st, buf: make([]byte, 256<<10), hash: sha256.New(), progress: progress}
	lim := limits.WithDefaults()
	entries := 0
	var total int64
	err = filepath.WalkDir(src, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == src {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		name := filepath.ToSlash(rel)
		if skill.Clutter(de.Name(), de.IsDir()) || de.Name() == "__MACOSX" {
			st.ignored++
			if de.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		entries++
		if lim.MaxEntries > 0 && entries > lim.MaxEntries {
			return &archive.EntryError{Entry: name, Err: fmt.Errorf("%w: more than %d entries in the folder (the entry limit)", archive.ErrLimit, lim.MaxEntries)}
		}
		info, err := de.Info()
		if err != nil {
			return err
		}
		m := info.Mode()
		switch {
		case m.IsDir():
			return w.dir(name)
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			t := filepath.ToSlash(target)
			if filepath.IsAbs(target) || strings.HasPrefix(t, "/") {
				st.refuse(name, &archive.EntryError{Entry: name, Err: fmt.Errorf("%w: symlink to the absolute path %q", archive.ErrLinkOutside, target)})
				return nil
			}
			return w.symlink(name, t, name)
		case !m.IsRegular():
			st.refuse(name, &archive.EntryError{Entry: name, Err: fmt.Errorf("%w: %v", archive.ErrSpecialFile, m.Type())})
			return nil
		case m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0:
			st.refuse(name, &archive.EntryError{Entry: name, Err: fmt.Errorf("%w: mode %v; skill files are never setuid, setgid or sticky", archive.ErrSetuid, m)})
			return nil
		}
		if lim.MaxEntryBytes > 0 && info.Size() > lim.MaxEntryBytes {
			return &archive.EntryError{Entry: name, Err: fmt.Errorf("%w: %d bytes, more than the per-entry limit of %d", archive.ErrLimit, info.Size(), lim.MaxEntryBytes)}
		}
		total += info.Size()
		if lim.MaxTotalBytes > 0 && total > lim.MaxTotalBytes {
			return &archive.EntryError{Entry: name, Err: fmt.Errorf("%w: the folder holds more than %d bytes (the total limit)", archive.ErrLimit, lim.MaxTotalBytes)}
		}
		mode := fs.FileMode(0o644)
		if m&0o111 != 0 {
			mode = 0o755
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		var r io.Reader = f
		if lim.MaxEntryBytes > 0 {
			r = io.LimitReader(f, lim.MaxEntryBytes+1)
		}
		return w.file(name, mode, r)
	})
	return st, err
}

// treeOf is what TreeSHA256 and skill.Files would find in the staged
// skill folder rel ("" for the whole tree), from what staging recorded
// while it wrote: its digest and inventory without reading a file again.
// ok is false when the folder holds a symbolic link (then the folder is
// read as it is on disk).
func (st *staged) treeOf(rel string) (sum string, inv skill.FileInventory, ok bool) {
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	for name := range st.symlinks {
		if strings.HasPrefix(name, prefix) {
			return "", inv, false
		}
	}
	m := &manifest{lines: map[string]string{}}
	var files []skill.File
	for name := range st.dirs {
		if strings.HasPrefix(name, prefix) {
			r := name[len(prefix):]
			m.lines[r] = "d " + r + "/\n"
		}
	}
	for name := range st.files {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		r := name[len(prefix):]
		mode := st.modes[name]
		text := "0644"
		if mode&0o111 != 0 {
			text = "0755"
		}
		m.lines[r] = "f " + text + " " + st.sums[name] + " " + r + "\n"
		files = append(files, skill.File{Path: r, Size: st.sizes[name], Type: skill.FileType(r, mode), Mode: mode})
	}
	return m.sum(), skill.Inventory(files), true
}
