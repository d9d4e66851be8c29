package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillctl/skillctl/pkg/agents"
)

// LockPath is the lock file of the targets o names (SPEC §12): with Dir,
// DIR/.skillctl-lock.json; in the project scope, skillctl.lock at the
// repository top (the working folder outside a repository); in the user
// scope, $XDG_CONFIG_HOME/skillctl/skills.lock (~/.config when unset).
func LockPath(o TargetOptions) (string, error) {
	if o.Dir != "" {
		roots, err := TargetRoots(o)
		if err != nil {
			return "", err
		}
		return filepath.Join(roots[0], LockFileName), nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	switch o.Scope {
	case "", ScopeUser:
		cfg := getenv("XDG_CONFIG_HOME")
		if cfg == "" || !filepath.IsAbs(cfg) {
			if o.Home == "" {
				return "", ErrNoHome
			}
			cfg = filepath.Join(o.Home, ".config")
		}
		return filepath.Join(cfg, "skillctl", UserLockName), nil
	case ScopeProject:
		top := agents.RepoTop(o.Cwd)
		if top == "" {
			top = o.Cwd
		}
		return filepath.Join(top, ProjectLockName), nil
	}
	return "", fmt.Errorf("the scope must be user or project, not %q", o.Scope)
}

// ScopeRoots is every agent's install folder of o's scope (or Dir): where
// the scope's skills are, and where locks of version 1 may be.
func ScopeRoots(o TargetOptions) ([]string, error) {
	if o.Dir == "" {
		o.Agents = agents.Names()
	}
	return TargetRoots(o)
}

// scopeLock is a lock file as an operation holds it: read once (with the
// version 1 locks of the scope's roots merged in), written once.
type scopeLock struct {
	path string
	*Lock
	// legacy are the version 1 lock files merged in: removed once the
	// lock is written.
	legacy []string
}

// openScopeLock reads the lock file p and merges in the version 1 lock of
// each root in legacyRoots (its folders relative to p's folder), for the
// folders p does not record yet.
func openScopeLock(p string, legacyRoots []string) (*scopeLock, error) {
	l, err := readLockAt(p)
	if err != nil {
		return nil, err
	}
	sl := &scopeLock{path: p, Lock: l}
	dir := filepath.Dir(p)
	for _, root := range legacyRoots {
		old := filepath.Join(root, LockFileName)
		if old == p {
			continue
		}
		data, err := os.ReadFile(old)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ol, err := parseLock(old, data)
		if err != nil {
			return nil, err
		}
		if ol.Read != 1 {
			continue // a --dir lock of its own, not an older one
		}
		prefix := FolderKey(dir, root)
		for _, s := range ol.slots {
			e, ok := s.entry()
			if !ok {
				continue
			}
			for _, f := range s.folders {
				if k := joinKey(prefix, f); !l.Has(k) {
					l.Set(k, s.name, e)
					l.byFolder[k].v1 = true
				}
			}
		}
		sl.legacy = append(sl.legacy, old)
	}
	return sl, nil
}

// ReadScopeLock reads the lock file p with the version 1 locks of roots
// merged in, as an operation would (for tools that only look).
func ReadScopeLock(p string, roots []string) (*Lock, error) {
	sl, err := openScopeLock(p, roots)
	if err != nil {
		return nil, err
	}
	return sl.Lock, nil
}

// write writes the lock and then removes the older locks it took in.
func (sl *scopeLock) write() error {
	sl.upgradeV1(context.Background(), filepath.Dir(sl.path))
	if err := writeLockAt(sl.path, sl.Lock); err != nil {
		return err
	}
	for _, old := range sl.legacy {
		_ = os.Remove(old)
	}
	sl.legacy = nil
	return nil
}

// joinKey is the key of folder name in a root whose key is prefix.
func joinKey(prefix, name string) string {
	if prefix == "" || prefix == "." {
		return name
	}
	return prefix + "/" + name
}

// lockOf is the lock path of root: the operation's lock file, else the
// root's own (--dir).
func lockOf(lockFile, root string) string {
	if lockFile != "" {
		return lockFile
	}
	return filepath.Join(root, LockFileName)
}

// lockDirsOf is the folders of the lock files of roots.
func lockDirsOf(lockFile string, roots []string) []string {
	var out []string
	for _, r := range roots {
		if d := filepath.Dir(lockOf(lockFile, r)); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
