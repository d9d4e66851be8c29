//go:build darwin

package install

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically (renamex_np RENAME_SWAP). It
// returns errNoExchange when the filesystem cannot.
func exchange(a, b string) error {
	err := unix.RenamexNp(a, b, unix.RENAME_SWAP)
	switch err {
	case unix.ENOTSUP, unix.EINVAL, unix.ENOSYS:
		return errNoExchange
	}
	return err
}
