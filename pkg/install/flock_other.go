//go:build !unix && !windows

package install

import (
	"os"
	"path/filepath"
)

// openLockTarget opens the file that is locked: a folder cannot be locked
// here, so a .skillctl-lock.json.lock file is kept in the root.
func openLockTarget(root string) (*os.File, error) {
	return os.OpenFile(filepath.Join(root, ".skillctl-lock.json.lock"), os.O_RDWR|os.O_CREATE, 0o644)
}

// tryLock has no file lock to take on this system: installs into the same
// target must not run at once.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }
