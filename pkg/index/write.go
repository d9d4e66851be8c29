package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillctl/skillctl/internal/atomicfs"
	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/skill"
)

// The marker comments around the block that WriteBlock maintains.
const (
	BeginMarker = "<!-- skillctl:begin -->"
	EndMarker   = "<!-- skillctl:end -->"
)

// BlockError is a file whose markers WriteBlock cannot make sense of.
type BlockError struct {
	File string
	Line int
	Msg  string
}

func (e *BlockError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Splice puts content between the two marker lines in old and returns the new
// file content; everything outside the block is kept byte for byte. When old
// has no markers the block is appended (after a blank line when old is not
// empty). The block uses CRLF line endings when old does. file names the file
// in errors.
func Splice(old, content []byte, file string) ([]byte, error) {
	nl := []byte("\n")
	if bytes.Contains(old, []byte("\r\n")) {
		nl = []byte("\r\n")
		content = bytes.ReplaceAll(bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n")), []byte("\n"), nl)
	}
	if len(content) > 0 && !bytes.HasSuffix(content, nl) {
		content = append(append([]byte(nil), content...), nl...)
	}
	begin, end := []byte(BeginMarker), []byte(EndMarker)
	bi, ei := bytes.Index(old, begin), bytes.Index(old, end)
	if bi >= 0 {
		if j := bytes.Index(old[bi+len(begin):], begin); j >= 0 {
			return nil, &BlockError{File: file, Line: lineAt(old, bi+len(begin)+j),
				Msg: fmt.Sprintf("a second %s marker (the first is on line %d); keep one block", BeginMarker, lineAt(old, bi))}
		}
	}
	if ei >= 0 {
		if j := bytes.Index(old[ei+len(end):], end); j >= 0 {
			return nil, &BlockError{File: file, Line: lineAt(old, ei+len(end)+j),
				Msg: fmt.Sprintf("a second %s marker (the first is on line %d); keep one block", EndMarker, lineAt(old, ei))}
		}
	}
	var out bytes.Buffer
	switch {
	case bi < 0 && ei < 0:
		out.Grow(len(old) + len(content) + 64)
		out.Write(old)
		if len(old) > 0 {
			if !bytes.HasSuffix(old, []byte("\n")) {
				out.Write(nl)
			}
			out.Write(nl)
		}
		out.Write(begin)
		out.Write(nl)
		out.Write(content)
		out.Write(end)
		out.Write(nl)
	case bi < 0:
		return nil, &BlockError{File: file, Line: lineAt(old, ei),
			Msg: fmt.Sprintf("%s has no %s before it; add the begin marker or remove this one", EndMarker, BeginMarker)}
	case ei < 0:
		return nil, &BlockError{File: file, Line: lineAt(old, bi),
			Msg: fmt.Sprintf("%s is never closed; add %s after the block", BeginMarker, EndMarker)}
	case ei < bi:
		return nil, &BlockError{File: file, Line: lineAt(old, ei),
			Msg: fmt.Sprintf("%s comes before %s (line %d); swap them", EndMarker, BeginMarker, lineAt(old, bi))}
	default:
		out.Grow(len(old) + len(content))
		out.Write(old[:bi])
		out.Write(begin)
		out.Write(nl)
		out.Write(content)
		out.Write(old[ei:])
	}
	return out.Bytes(), nil
}

func lineAt(b []byte, off int) int {
	return bytes.Count(b[:off], []byte("\n")) + 1
}

// WriteBlock puts content between the markers in file (see Splice), creating
// the file when it is missing. The file is replaced atomically and only when
// its content changes; changed reports whether it did. It writes only where
// the user asked (SPEC §8, §15): file must be a regular file or absent — a
// symbolic link, FIFO, device, socket or folder is refused, and so is a
// read-only file — and the new file keeps the old one's mode and owner (or
// is refused when its owner could not be kept).
func WriteBlock(file string, content []byte) (changed bool, err error) {
	return writeInto(file, func(old []byte) ([]byte, error) { return Splice(old, content, file) })
}

// WriteWhole makes content the whole of file: JSON has no comments to
// mark a block with, so a .json index is the file. An existing file is
// replaced only when it is empty or holds a JSON array (an index written
// before); anything else is refused, so that no other file is lost. The
// rules of WriteBlock apply otherwise.
func WriteWhole(file string, content []byte) (changed bool, err error) {
	return writeInto(file, func(old []byte) ([]byte, error) {
		trimmed := bytes.TrimSpace(old)
		if len(trimmed) > 0 && (trimmed[0] != '[' || !json.Valid(trimmed)) {
			return nil, fmt.Errorf("%s holds something other than a JSON index (a JSON array); skillctl replaces only an index it wrote: remove the file or choose another", file)
		}
		return content, nil
	})
}

// writeInto replaces file with what build makes of its old content.
func writeInto(file string, build func(old []byte) ([]byte, error)) (changed bool, err error) {
	perm := fs.FileMode(0o644)
	var old []byte
	fi, err := os.Lstat(file)
	exists := err == nil
	switch {
	case err == nil:
		if err := writableRegular(file, fi); err != nil {
			return false, err
		}
		perm = fi.Mode().Perm()
		if old, err = readRegular(file, fi); err != nil {
			return false, err
		}
	case errors.Is(err, fs.ErrNotExist):
		if fi, err := os.Stat(filepath.Dir(file)); err != nil || !fi.IsDir() {
			return false, fmt.Errorf("cannot create %s: the folder %s does not exist", file, filepath.Dir(file))
		}
	default:
		return false, fmt.Errorf("%s: %w", file, err)
	}
	data, err := build(old)
	if err != nil {
		return false, err
	}
	if exists && bytes.Equal(old, data) {
		return false, nil
	}
	err = atomicfs.Write(file, perm, func(f *os.File) error {
		if _, err := f.Write(data); err != nil {
			return err
		}
		if exists {
			return keepOwner(f, fi)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return true, nil
}

// writableRegular refuses what --write must not write into.
func writableRegular(file string, fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		target, _ := os.Readlink(file)
		return fmt.Errorf("%s is a symbolic link (to %s); skillctl does not write through links: pass the file it points to", file, target)
	case m.IsDir():
		return fmt.Errorf("%s is a folder; pass a file such as %s", file, filepath.Join(file, "AGENTS.md"))
	case !m.IsRegular():
		return fmt.Errorf("%s is not a regular file (%s); skillctl writes only regular files", file, fileKind(m))
	case m.Perm()&0o222 == 0 || !canWrite(file):
		return fmt.Errorf("%s is read-only; make it writable first if it should be updated", file)
	}
	return nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// readRegular reads file, making sure what is read is the regular file
// that was looked at (not a FIFO or link swapped in since).
func readRegular(file string, fi fs.FileInfo) ([]byte, error) {
	f, err := openNoFollow(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if !now.Mode().IsRegular() || !os.SameFile(fi, now) {
		return nil, fmt.Errorf("%s changed while it was read; try again", file)
	}
	return io.ReadAll(f)
}

// FormatForFile is the format --write uses for file when no --format is
// given, by its extension: .md catalog, .json json, .xml xml; "" for any
// other (the default format applies).
func FormatForFile(file string) string {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".md", ".markdown":
		return FormatCatalog
	case ".json":
		return FormatJSON
	case ".xml":
		return FormatXML
	}
	return ""
}

// ForFile prepares the items of an index written into file (--write): when
// file is inside a repository, the paths of the skills inside it become
// relative to file's folder and, with onlyRepo, the skills outside it are
// left out (outside counts them; repo names the repository's top).
func ForFile(items []Item, file string, onlyRepo bool) (kept []Item, outside int, repo string) {
	dir := filepath.Dir(file)
	top := agents.RepoTop(dir)
	if top == "" {
		return items, 0, ""
	}
	realTop, realDir := top, dir
	if r, err := filepath.EvalSymlinks(top); err == nil {
		realTop = r
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		realDir = r
	}
	for _, it := range items {
		loc := it.absLocation()
		it.RealDir = filepath.Dir(loc) // resolved once
		if !skill.Within(realTop, it.RealDir) {
			if onlyRepo {
				outside++
				continue
			}
		} else {
			it.RelTo = realDir
		}
		kept = append(kept, it)
	}
	return kept, outside, top
}
