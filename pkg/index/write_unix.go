//go:build unix

package index

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func openNoFollow(file string) (*os.File, error) {
	return os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

func canWrite(file string) bool { return unix.Access(file, unix.W_OK) == nil }

// keepOwner gives the new file f the owner and group of the old one (fi),
// or fails when it cannot (a file of another user).
func keepOwner(f *os.File, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	uid, gid := int(st.Uid), int(st.Gid)
	if uid == os.Getuid() && gid == os.Getegid() {
		return nil
	}
	if err := f.Chown(uid, gid); err != nil {
		return fmt.Errorf("%s belongs to user %d (group %d), which the new file could not keep (%v); update it as that user", fi.Name(), uid, gid, err)
	}
	return nil
}
