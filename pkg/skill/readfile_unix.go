//go:build unix

package skill

import (
	"errors"
	"io/fs"
	"syscall"
)

// readSmallFile reads a file into buf with plain system calls, skipping the
// runtime poller registration os.Open does: listing thousands of skills is
// bound by these calls. It returns the bytes read and whether the file was
// longer than buf.
//
// With shortIsEOF, a read that returns less than asked is taken as the end
// of the file (true of regular files on local file systems), saving the
// extra read that would return 0. The file is opened non-blocking so that
// a FIFO or a terminal named SKILL.md cannot hang a listing.
func readSmallFile(name string, buf []byte, shortIsEOF bool) (int, bool, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, false, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return 0, false, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
		}
		if err != nil {
			return 0, false, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			return n, false, nil
		}
		n += m
		if shortIsEOF && n < len(buf) {
			return n, false, nil
		}
	}
	return n, true, nil
}

var errNotRegular = errors.New("not a regular file")

// openNonblock is added to the flags of files opened inside a skill.
const openNonblock = syscall.O_NONBLOCK
