//go:build darwin

package atomicfs

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically (renamex_np RENAME_SWAP). It
// returns ErrNoExchange when the filesystem cannot.
func exchange(a, b string) error {
	err := unix.RenamexNp(a, b, unix.RENAME_SWAP)
	switch err {
	case unix.ENOTSUP, unix.EINVAL, unix.ENOSYS:
		return ErrNoExchange
	}
	return err
}
