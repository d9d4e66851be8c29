package index

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillctl/skillctl/internal/atomicfs"
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
// its content changes; changed reports whether it did. A symbolic link is
// followed, so the file it points to is updated.
func WriteBlock(file string, content []byte) (changed bool, err error) {
	target := file
	if fi, err := os.Lstat(file); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(file); err != nil {
			return false, fmt.Errorf("%s is a symbolic link that cannot be followed: %w", file, err)
		}
	}
	perm := fs.FileMode(0o644)
	old, err := os.ReadFile(target)
	exists := err == nil
	switch {
	case err == nil:
		if fi, err := os.Stat(target); err == nil {
			perm = fi.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
		if fi, err := os.Stat(filepath.Dir(target)); err != nil || !fi.IsDir() {
			return false, fmt.Errorf("cannot create %s: the folder %s does not exist", file, filepath.Dir(target))
		}
	default:
		return false, fmt.Errorf("read %s: %w", file, err)
	}
	data, err := Splice(old, content, file)
	if err != nil {
		return false, err
	}
	if exists && bytes.Equal(old, data) {
		return false, nil
	}
	if err := atomicfs.WriteFile(target, data, perm); err != nil {
		return false, err
	}
	return true, nil
}
