// Package atomicfs is how skillctl writes what matters: a file is replaced
// whole (temporary file, fsync, rename) and a folder is swapped in whole, so
// that a reader, a crash or a full disk sees the old state or the new one,
// never a mix. Every writer in skillctl goes through it.
package atomicfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNoExchange: the file system cannot exchange two paths atomically.
var ErrNoExchange = errors.New("atomic exchange not supported")

// Exchange swaps two paths atomically where the system can (Linux
// renameat2, macOS renamex_np); it returns ErrNoExchange elsewhere.
// Tests may replace it.
var Exchange = exchange

// KeepMode, as the perm of WriteFile, keeps the mode of the file being
// replaced (0644 for a new file).
const KeepMode fs.FileMode = 1 << 31 // fs.ModeDir's bit: never a file permission

// WriteFile replaces path with data atomically, with the permission bits
// perm (or KeepMode). On failure path is left as it was and no temporary
// file remains.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// Write replaces path atomically with what fill writes into the temporary
// file it is given (its name is f.Name()). On failure, fill's included,
// path is left as it was and the temporary file is removed.
func Write(path string, perm fs.FileMode, fill func(f *os.File) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if perm == KeepMode {
		perm = 0o644
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	SyncDir(dir)
	return nil
}

// SyncDir flushes a folder's entries (renames) to disk where the system allows it.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// SwapIn puts the folder staged at dest. An existing dest is exchanged with
// staged atomically where the system can, leaving the old folder at
// staged; elsewhere dest is first renamed to aside and staged renamed in,
// with step called between the two renames (a journal may record it there).
// The caller removes what is left at staged or aside.
func SwapIn(staged, dest, aside string, step func() error) error {
	if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(staged, dest)
	}
	err := Exchange(staged, dest)
	if err == nil || !errors.Is(err, ErrNoExchange) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(aside), 0o755); err != nil {
		return err
	}
	if err := os.Rename(dest, aside); err != nil {
		return err
	}
	if step != nil {
		if err := step(); err != nil {
			return err
		}
	}
	return os.Rename(staged, dest)
}

// ReplaceDir puts the folder stage in place of target and removes the old
// target. When the swap fails the old target is put back and stage is left
// for the caller to remove.
func ReplaceDir(stage, target string) error {
	aside := stage + ".old"
	err := SwapIn(stage, target, aside, nil)
	if err != nil {
		if _, serr := os.Lstat(target); errors.Is(serr, fs.ErrNotExist) {
			_ = os.Rename(aside, target)
		}
		return fmt.Errorf("replace %s: %w", target, err)
	}
	// After an exchange the old folder is at stage; after two renames, at aside.
	for _, old := range []string{stage, aside} {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove the previous %s: %w", target, err)
		}
	}
	return nil
}
