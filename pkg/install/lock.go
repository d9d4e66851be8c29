package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/skillctl/skillctl/internal/atomicfs"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Names of skillctl's own files in a target root. Names starting with a dot
// are never taken for skills by discovery.
const (
	LockFileName   = ".skillctl-lock.json"
	stagingPrefix  = ".skillctl-staging-"
	lockFileFormat = 1
)

// Source kinds.
const (
	KindArchive = "archive"
	KindFolder  = "folder"
	KindURL     = "url"
)

// SourceRef says where an installed skill came from.
type SourceRef struct {
	Kind     string `json:"kind"`
	Location string `json:"location"`
	// SHA256 is the archive's digest (empty for folders).
	SHA256 string `json:"sha256,omitempty"`
}

// LockEntry is what the lock file records for one installed skill (SPEC §6).
type LockEntry struct {
	// Version is the install time, YYYYMMDD-HHmmss UTC.
	Version string `json:"version"`
	// DeclaredVersion is the skill's own version field, if any.
	DeclaredVersion string              `json:"declaredVersion"`
	Source          SourceRef           `json:"source"`
	InstalledAt     string              `json:"installedAt"`
	SkillMdSha256   string              `json:"skillMdSha256"`
	TreeSha256      string              `json:"treeSha256"`
	FileInventory   skill.FileInventory `json:"fileInventory"`
}

// Lock is the lock file of one target root.
type Lock struct {
	LockfileVersion int                  `json:"lockfileVersion"`
	Skills          map[string]LockEntry `json:"skills"`
}

// Names is the names of the installed skills, sorted.
func (l *Lock) Names() []string {
	names := make([]string, 0, len(l.Skills))
	for n := range l.Skills {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ReadLock reads root's lock file; a missing file is an empty lock.
func ReadLock(root string) (*Lock, error) {
	p := filepath.Join(root, LockFileName)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{LockfileVersion: lockFileFormat, Skills: map[string]LockEntry{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: not a valid lock file (%v); fix it or move it away, then run the command again", p, err)
	}
	if l.LockfileVersion > lockFileFormat {
		return nil, fmt.Errorf("%s: lock file format %d is newer than this skillctl understands (%d); upgrade skillctl", p, l.LockfileVersion, lockFileFormat)
	}
	l.LockfileVersion = lockFileFormat
	if l.Skills == nil {
		l.Skills = map[string]LockEntry{}
	}
	return &l, nil
}

// writeLock replaces root's lock file atomically (temp file, fsync, rename).
func writeLock(root string, l *Lock) error {
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return writeLockFile(filepath.Join(root, LockFileName), append(data, '\n'), 0o644)
}

// writeLockFile writes the lock file; tests make it fail as a full disk would.
var writeLockFile = atomicfs.WriteFile

// rootLock is the held file lock of a target root.
type rootLock struct{ f *os.File }

// lockRoot creates root if needed, takes its file lock (waiting until the
// context ends) and, holding it, finishes or undoes an install a crash
// interrupted (Recover): whoever holds the lock sees a consistent root.
func lockRoot(ctx context.Context, root string) (*rootLock, error) {
	l, err := takeLock(ctx, root)
	if err != nil {
		return nil, err
	}
	if err := Recover(root); err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

func takeLock(ctx context.Context, root string) (*rootLock, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", root, err)
	}
	f, err := openLockTarget(root)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", root, err)
	}
	wait := 10 * time.Millisecond
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", root, err)
		}
		if ok {
			return &rootLock{f: f}, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		if wait < 200*time.Millisecond {
			wait *= 2
		}
	}
}

func (l *rootLock) release() {
	_ = unlock(l.f)
	l.f.Close()
}

// Provenance is where the skill in root/<folder> came from, from the
// root's lock (nil when skillctl did not install it).
func (l *Lock) Provenance(folder string) *skill.Provenance {
	e, ok := l.Skills[folder]
	if !ok {
		return nil
	}
	return &skill.Provenance{Kind: e.Source.Kind, Location: e.Source.Location, SHA256: e.Source.SHA256,
		Version: e.DeclaredVersion, InstalledAt: e.InstalledAt, TreeSHA256: e.TreeSha256}
}

// Provenances looks up, for each skill folder in dirs, where skillctl
// installed it from: each parent folder's lock file is read once. Folders
// skillctl did not install, and locks that cannot be read, give nothing.
func Provenances(dirs []string) map[string]*skill.Provenance {
	out := map[string]*skill.Provenance{}
	locks := map[string]*Lock{}
	for _, d := range dirs {
		root := filepath.Dir(d)
		l, seen := locks[root]
		if !seen {
			if _, err := os.Lstat(filepath.Join(root, LockFileName)); err == nil {
				l, _ = ReadLock(root)
			}
			locks[root] = l
		}
		if l == nil {
			continue
		}
		if p := l.Provenance(filepath.Base(d)); p != nil {
			out[d] = p
		}
	}
	return out
}
