//go:build !unix

package skill

import (
	"io"
	"os"
)

// readSmallFile reads a file into buf. It returns the bytes read and
// whether the file was longer than buf.
func readSmallFile(name string, buf []byte, _ bool) (int, bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return n, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return n, true, nil
}

// openNonblock is added to the flags of files opened inside a skill.
const openNonblock = 0
