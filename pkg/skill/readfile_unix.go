//go:build unix

package skill

import (
	"errors"
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// readSkillFile reads a whole file into *bp, growing it when the file is
// larger, with plain system calls, skipping the runtime poller
// registration os.Open does: listing thousands of skills is bound by these
// calls. Each file is opened and read once: a file larger than the buffer
// is measured (fstat) and read on into a buffer of its size. It returns
// the bytes read and the file's size; for a file over limit bytes, only
// its size.
//
// With shortIsEOF, a read that returns less than asked is taken as the end
// of the file (true of regular files on local file systems), saving the
// extra read that would return 0. The file is opened non-blocking so that
// a FIFO or a terminal named SKILL.md cannot hang a listing.
//
// With head, a file whose frontmatter closes in its first headChunk bytes
// is not read further: n covers the frontmatter and size is the file's
// size (listings need no body).
//
// With dirfd ≥ 0 the file is opened as rel relative to that folder (a
// shorter path walk for the kernel); name is then only for messages.
func readSkillFile(dirfd int, rel, name string, bp *[]byte, shortIsEOF, head bool, limit int64) (n int, size int64, err error) {
	var fd int
	for {
		if dirfd >= 0 {
			fd, err = unix.Openat(dirfd, rel, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		} else {
			fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		}
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, 0, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	buf := *bp
	// A listing reads a first chunk and stops there when the frontmatter
	// closes in it, however large the (reused) buffer has grown.
	upto := len(buf)
	if head && upto > headChunk {
		upto = headChunk
	}
	for {
		for n < upto {
			m, err := syscall.Read(fd, buf[n:upto])
			if err == syscall.EINTR {
				continue
			}
			if err == syscall.EAGAIN {
				return 0, 0, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
			}
			if err != nil {
				return 0, 0, &fs.PathError{Op: "read", Path: name, Err: err}
			}
			if m == 0 {
				return n, int64(n), nil
			}
			n += m
			if shortIsEOF && n < upto {
				return n, int64(n), nil
			}
		}
		// What was asked for is read: is there more?
		var st syscall.Stat_t
		size := int64(-1)
		if syscall.Fstat(fd, &st) == nil && st.Size >= int64(n) {
			size = st.Size
		}
		if head {
			head = false
			if end := frontmatterEnd(buf[:n]); end >= 0 {
				return end, max(size, int64(n)), nil
			}
		}
		if int64(n) > limit {
			return 0, max(size, int64(n)), nil
		}
		want := size + 1 // room for the rest, and one byte more to see the end
		if size < 0 || want <= int64(n) {
			want = int64(len(buf)) * 2
		}
		want = min(want, limit+1)
		if want > int64(len(buf)) {
			grown := make([]byte, want)
			copy(grown, buf[:n])
			buf, *bp = grown, grown
		}
		upto = len(buf)
		if int64(upto) > want {
			upto = int(want)
		}
	}
}

// headChunk is how much of a SKILL.md a listing reads first: real
// frontmatter ends well within it.
const headChunk = 4 << 10

var errNotRegular = errors.New("not a regular file")

// openNonblock is added to the flags of files opened inside a skill.
const openNonblock = syscall.O_NONBLOCK

// OpenDirFD opens a folder for ReadSkillFileAt and IsDirAt (-1 when it
// cannot be opened: callers then use full paths).
func OpenDirFD(dir string) int {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// CloseDirFD closes what OpenDirFD opened.
func CloseDirFD(fd int) {
	if fd >= 0 {
		syscall.Close(fd)
	}
}

// IsDirAt reports whether rel (relative to dirfd, or the full path name
// when dirfd < 0) is a folder, without allocating.
func IsDirAt(dirfd int, rel, name string) bool {
	var st unix.Stat_t
	var err error
	if dirfd >= 0 {
		err = unix.Fstatat(dirfd, rel, &st, 0)
	} else {
		err = unix.Stat(name, &st)
	}
	return err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}
