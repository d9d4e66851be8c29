//go:build linux

package atomicfs

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically (renameat2 RENAME_EXCHANGE). It
// returns ErrNoExchange when the filesystem cannot.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	switch err {
	case unix.ENOSYS, unix.EINVAL, unix.ENOTSUP:
		return ErrNoExchange
	}
	return err
}
