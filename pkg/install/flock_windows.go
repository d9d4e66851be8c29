//go:build windows

package install

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// openLockTarget opens the file that is locked: a folder cannot be locked
// here, so a .skillctl-lock.json.lock file is kept in the root.
func openLockTarget(root string) (*os.File, error) {
	return os.OpenFile(filepath.Join(root, ".skillctl-lock.json.lock"), os.O_RDWR|os.O_CREATE, 0o644)
}

// tryLock takes an exclusive lock (LockFileEx) on f without waiting.
// It reports false when another process holds it.
func tryLock(f *os.File) (bool, error) {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}
