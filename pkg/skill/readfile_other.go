//go:build !unix

package skill

import (
	"io"
	"os"
)

// readSkillFile reads a whole file into *bp, growing it when the file is
// larger. It returns the bytes read and the file's size; for a file over
// limit bytes, only its size.
// With head, a file larger than the buffer whose frontmatter closes in it
// is not read further.
func readSkillFile(_ int, _, name string, bp *[]byte, _, head bool, limit int64) (n int, size int64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	buf := *bp
	for {
		m, err := io.ReadFull(f, buf[n:])
		n += m
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return n, int64(n), nil
		}
		if err != nil {
			return 0, 0, err
		}
		size := int64(n)
		if fi, err := f.Stat(); err == nil && fi.Size() > size {
			size = fi.Size()
		}
		if int64(n) > limit {
			return 0, size, nil
		}
		if head {
			if end := frontmatterEnd(buf[:n]); end >= 0 {
				return end, size, nil
			}
		}
		grown := make([]byte, min(int64(len(buf))*2, limit+1))
		copy(grown, buf[:n])
		buf, *bp = grown, grown
	}
}

// openNonblock is added to the flags of files opened inside a skill.
const openNonblock = 0

// OpenDirFD is -1 here: files are opened by their full paths.
func OpenDirFD(string) int { return -1 }

// CloseDirFD does nothing here.
func CloseDirFD(int) {}

// IsDirAt reports whether name is a folder.
func IsDirAt(_ int, _, name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}
