//go:build unix

package install

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openLockTarget opens what is locked: the target root folder itself, so
// that locking leaves no file behind.
func openLockTarget(root string) (*os.File, error) { return os.Open(root) }

// tryLock takes an exclusive advisory lock (flock) on f without waiting.
// It reports false when another process holds it.
func tryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
