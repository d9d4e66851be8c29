//go:build unix

package validate

import (
	"io/fs"
	"syscall"

	"github.com/skillctl/skillctl/pkg/skill"
)

// readSkillFile reads the file at path, up to skill.MaxSkillMDSize+1 bytes,
// with plain system calls: for tens of thousands of small files, os.File's
// poller registration costs more than the read itself.
func readSkillFile(path string) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errNotRegular}
	}
	size := int(min(st.Size, skill.MaxSkillMDSize+1))
	buf := make([]byte, 0, size+1)
	for len(buf) <= skill.MaxSkillMDSize {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) == st.Size {
			break // the whole file, as large as fstat said
		}
	}
	return buf, nil
}
