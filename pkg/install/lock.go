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
	"strconv"
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
	KindGit     = "git"
)

// SourceRef says where an installed skill came from.
type SourceRef struct {
	Kind     string `json:"kind"`
	Location string `json:"location"`
	// SHA256 is the archive's digest (empty for folders).
	SHA256 string `json:"sha256,omitempty"`
	// URL, Ref, Commit and Subdir say where a git source was fetched:
	// the repository (without credentials), the ref asked for ("" for
	// the default branch), the commit checked out, and the sub path.
	URL    string `json:"url,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	Subdir string `json:"subdir,omitempty"`
}

// LockEntry is what the lock file records for one installed skill (SPEC §6).
type LockEntry struct {
	// Version is the install time, YYYYMMDD-HHmmss UTC.
	Version string `json:"version"`
	// DeclaredVersion is the skill's own version field, if any.
	DeclaredVersion string    `json:"declaredVersion"`
	Source          SourceRef `json:"source"`
	InstalledAt     string    `json:"installedAt"`
	SkillMdSha256   string    `json:"skillMdSha256"`
	TreeSha256      string    `json:"treeSha256"`
}

// Lock is the lock file of one target root. It is read once and written
// once per operation; entries an operation does not touch are kept as the
// bytes they were read as, so that a root of many skills costs little more
// than an empty one (SPEC §10).
type Lock struct {
	LockfileVersion int
	slots           map[string]*lockSlot
}

// lockSlot is one entry: its bytes as read (raw, without the opening
// "{\n", which every entry has), or the entry (e) once decoded or set.
type lockSlot struct {
	raw []byte
	e   *LockEntry
}

func newLock() *Lock { return &Lock{LockfileVersion: lockFileFormat, slots: map[string]*lockSlot{}} }

// Len is the number of entries.
func (l *Lock) Len() int { return len(l.slots) }

// Has reports whether the lock has an entry for name.
func (l *Lock) Has(name string) bool { _, ok := l.slots[name]; return ok }

// Get returns the entry of name. An entry whose bytes cannot be decoded
// reads as absent.
func (l *Lock) Get(name string) (LockEntry, bool) {
	s, ok := l.slots[name]
	if !ok {
		return LockEntry{}, false
	}
	if s.e == nil {
		var e LockEntry
		if err := json.Unmarshal(append([]byte("{\n"), s.raw...), &e); err != nil {
			return LockEntry{}, false
		}
		s.e = &e
	}
	return *s.e, true
}

// Set records the entry of name.
func (l *Lock) Set(name string, e LockEntry) { l.slots[name] = &lockSlot{e: &e} }

// Delete removes the entry of name.
func (l *Lock) Delete(name string) { delete(l.slots, name) }

// Entries decodes every entry (for tests and tools that want them all).
func (l *Lock) Entries() map[string]LockEntry {
	out := make(map[string]LockEntry, len(l.slots))
	for n := range l.slots {
		if e, ok := l.Get(n); ok {
			out[n] = e
		}
	}
	return out
}

// Names is the names of the installed skills, sorted.
func (l *Lock) Names() []string {
	names := make([]string, 0, len(l.slots))
	for n := range l.slots {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lockFile is the JSON shape of a lock file.
type lockFile struct {
	LockfileVersion int                        `json:"lockfileVersion"`
	Skills          map[string]json.RawMessage `json:"skills"`
}

// ReadLock reads root's lock file; a missing file is an empty lock.
func ReadLock(root string) (*Lock, error) {
	p := filepath.Join(root, LockFileName)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return newLock(), nil
	}
	if err != nil {
		return nil, err
	}
	return parseLock(p, data)
}

// ReadLockFile reads a lock file given by path (install --lockfile); a
// missing file is an error.
func ReadLockFile(p string) (*Lock, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, skill.Mark(fmt.Errorf("%s: no such lock file", p), skill.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	return parseLock(p, data)
}

func parseLock(p string, data []byte) (*Lock, error) {
	l, ok := splitLock(data)
	if !ok {
		var f lockFile
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s: not a valid lock file (%v); fix it or move it away, then run the command again", p, err)
		}
		l = newLock()
		l.LockfileVersion = f.LockfileVersion
		for n, raw := range f.Skills {
			var e LockEntry
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, fmt.Errorf("%s: the entry of %s is not valid (%v); fix it or move the file away, then run the command again", p, n, err)
			}
			l.slots[n] = &lockSlot{e: &e}
		}
	}
	if l.LockfileVersion > lockFileFormat {
		return nil, fmt.Errorf("%s: lock file format %d is newer than this skillctl understands (%d); upgrade skillctl", p, l.LockfileVersion, lockFileFormat)
	}
	l.LockfileVersion = lockFileFormat
	return l, nil
}

// Lock files are written in one layout (encodeLock); splitLock reads that
// layout without decoding the entries. Anything else (a file edited by
// hand) is decoded in full.
const (
	lockHead    = "{\n  \"lockfileVersion\": "
	skillsHead  = ",\n  \"skills\": {\n"
	skillsEmpty = ",\n  \"skills\": {}\n}\n"
	lockTail    = "  }\n}\n"
	entryIndent = "    "
	entryEnd    = "\n" + entryIndent + "}"
)

func splitLock(data []byte) (*Lock, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(lockHead))
	if !ok {
		return nil, false
	}
	i := bytes.IndexByte(rest, ',')
	if i < 0 {
		return nil, false
	}
	version, err := strconv.Atoi(string(rest[:i]))
	if err != nil {
		return nil, false
	}
	l := newLock()
	l.LockfileVersion = version
	if bytes.Equal(rest[i:], []byte(skillsEmpty)) {
		return l, true
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(skillsHead))
	if !ok {
		return nil, false
	}
	for {
		// `    "name": {` … `    }` then `,` or the end
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok || !bytes.HasPrefix(line, []byte(entryIndent+`"`)) || !bytes.HasSuffix(line, []byte(`": {`)) {
			return nil, false
		}
		key := line[len(entryIndent) : len(line)-3]
		var name string
		if bytes.IndexByte(key, '\\') < 0 && bytes.IndexByte(key[1:len(key)-1], '"') < 0 {
			name = string(key[1 : len(key)-1])
		} else if json.Unmarshal(key, &name) != nil {
			return nil, false
		}
		end := bytes.Index(after, []byte(entryEnd))
		if end < 0 {
			return nil, false
		}
		body := after[:end+len(entryEnd)]
		rest = after[len(body):]
		if _, dup := l.slots[name]; dup {
			return nil, false
		}
		l.slots[name] = &lockSlot{raw: body}
		switch {
		case bytes.HasPrefix(rest, []byte(",\n")):
			rest = rest[2:]
		case bytes.Equal(rest, []byte("\n"+lockTail)):
			return l, true
		default:
			return nil, false
		}
	}
}

// encodeLock writes the lock in its one layout, the one
// json.MarshalIndent(lock, "", "  ") gives: entries sorted by name,
// untouched ones as their bytes were read.
func encodeLock(l *Lock) ([]byte, error) {
	names := l.Names()
	size := 64
	for _, n := range names {
		size += len(n) + len(l.slots[n].raw) + 16
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	b.WriteString(lockHead)
	b.WriteString(strconv.Itoa(l.LockfileVersion))
	if len(names) == 0 {
		b.WriteString(skillsEmpty)
		return b.Bytes(), nil
	}
	b.WriteString(skillsHead)
	for i, n := range names {
		s := l.slots[n]
		b.WriteString(entryIndent)
		if plainKey(n) {
			b.WriteByte('"')
			b.WriteString(n)
			b.WriteByte('"')
		} else {
			key, err := json.Marshal(n)
			if err != nil {
				return nil, err
			}
			b.Write(key)
		}
		b.WriteString(": ")
		if s.raw != nil {
			b.WriteString("{\n")
			b.Write(s.raw)
		} else {
			raw, err := json.MarshalIndent(s.e, entryIndent, "  ")
			if err != nil {
				return nil, err
			}
			b.Write(raw)
		}
		if i < len(names)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(lockTail)
	return b.Bytes(), nil
}

// plainKey reports whether name is its own JSON string (as encoding/json
// writes it: no quotes, backslashes, controls, non-ASCII or <>&).
func plainKey(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// writeLock replaces root's lock file atomically (temp file, fsync, rename).
func writeLock(root string, l *Lock) error {
	data, err := encodeLock(l)
	if err != nil {
		return err
	}
	return writeLockFile(filepath.Join(root, LockFileName), data, 0o644)
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
	e, ok := l.Get(folder)
	if !ok {
		return nil
	}
	return &skill.Provenance{Kind: e.Source.Kind, Location: e.Source.Location, SHA256: e.Source.SHA256, Commit: e.Source.Commit,
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
