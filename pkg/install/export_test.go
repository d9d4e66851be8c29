package install

import (
	"context"
	"io/fs"

	"github.com/skillctl/skillctl/internal/atomicfs"
)

// SetFault makes the installer call f at each commit step; returning
// ErrCrash stops there as a killed process would.
func (in *Installer) SetFault(f func(step string) error) { in.fault = f }

// SetFault is the same for uninstalls.
func (u *Uninstaller) SetFault(f func(step string) error) { u.fault = f }

// ErrCrash is the simulated crash.
var ErrCrash = errCrash

// NoExchange forces the two-rename swap used where no atomic exchange exists.
func NoExchange() func() {
	old := atomicfs.Exchange
	atomicfs.Exchange = func(a, b string) error { return atomicfs.ErrNoExchange }
	return func() { atomicfs.Exchange = old }
}

// FailLockWrites makes every lock write fail with err until the returned
// function is called.
func FailLockWrites(err error) func() {
	old := writeLockFile
	writeLockFile = func(string, []byte, fs.FileMode) error { return err }
	return func() { writeLockFile = old }
}

// LegacyTreeSHA256 is the tree digest version 1 locks recorded.
func LegacyTreeSHA256(dir string) (string, error) {
	m, err := treeManifest(context.Background(), dir)
	if err != nil {
		return "", err
	}
	return m.legacySum(), nil
}
