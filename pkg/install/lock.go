package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/skillctl/skillctl/internal/atomicfs"
	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Names of skillctl's lock files (SPEC §12). Names starting with a dot
// are never taken for skills by discovery.
const (
	// LockFileName is the lock of a target folder given with --dir, kept
	// in that folder (and, in version 1, the lock of every target folder).
	LockFileName = ".skillctl-lock.json"
	// ProjectLockName is the project scope's lock, at the repository top.
	ProjectLockName = "skillctl.lock"
	// UserLockName is the user scope's lock, in $XDG_CONFIG_HOME/skillctl.
	UserLockName  = "skills.lock"
	stagingPrefix = ".skillctl-staging-"
	lockVersion   = 2
)

// Source kinds.
const (
	KindArchive = "archive"
	KindPath    = "path"
	KindURL     = "url"
	KindGit     = "git"
)

// SourceRef says where an installed skill came from.
type SourceRef struct {
	Kind string `json:"kind"`
	// Location is the source as the user gave it, without credentials.
	Location string `json:"location"`
	// URL, Ref, Commit and Subdir say where a git source was fetched:
	// the repository (without credentials), the ref asked for ("" for
	// the default branch), the commit checked out, and the sub path.
	URL    string `json:"url,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	Subdir string `json:"subdir,omitempty"`
	// SHA256 is a downloaded or given archive's digest, or a well-known
	// index entry's (empty for folders and git).
	SHA256 string `json:"sha256,omitempty"`
}

// LockEntry is what the lock records for one installed skill besides its
// name and folders (SPEC §12).
type LockEntry struct {
	Source SourceRef `json:"source"`
	// TreeSha256 is the canonical digest of the skill's files (TreeSHA256).
	TreeSha256    string `json:"treeSha256"`
	SkillMdSha256 string `json:"skillMdSha256"`
	// DeclaredVersion is the skill's own version field, if any.
	DeclaredVersion string `json:"declaredVersion"`
	InstalledAt     string `json:"installedAt"`
	// AuditAccepted lists, comma-separated, the audit rules at or above
	// the gate that were accepted when the skill was installed
	// (--allow-risk, audit.allow); a restore accepts them again.
	AuditAccepted string `json:"auditAccepted,omitempty"`
}

// sameInstall reports whether two entries record the same files from the
// same source (their install times aside): one entry can hold both folders.
func sameInstall(a, b LockEntry) bool {
	a.InstalledAt, b.InstalledAt = "", ""
	return a == b
}

// Lock is one lock file: an entry per skill, each naming the folders (one
// per agent folder) its files were copied into, relative to the lock's
// folder. A folder belongs to one entry at most. It is read once and
// written once per operation; entries an operation does not touch are
// kept as the bytes they were read as, so that a lock of many skills costs
// little more than an empty one (SPEC §10).
type Lock struct {
	// Read is the format of the file read: 0 (none), 1 or 2.
	Read     int
	slots    []*lockSlot
	byFolder map[string]*lockSlot
}

// lockSlot is one entry: its name and folders, and the rest as bytes (raw:
// from `      "source"` to the closing `    }`), decoded on demand.
type lockSlot struct {
	name    string
	folders []string
	raw     []byte
	e       *LockEntry
	// v1: read from a version 1 lock, whose treeSha256 had another form.
	v1 bool
}

func newLock() *Lock { return &Lock{byFolder: map[string]*lockSlot{}} }

func (s *lockSlot) entry() (LockEntry, bool) {
	if s.e == nil {
		var e LockEntry
		if err := json.Unmarshal(append([]byte("{\n"), s.raw...), &e); err != nil {
			return LockEntry{}, false
		}
		s.e = &e
	}
	return *s.e, true
}

// Len is the number of entries.
func (l *Lock) Len() int { return len(l.slots) }

// Has reports whether the lock records the folder (a slash path relative
// to the lock's folder; for a --dir lock, the skill's folder name).
func (l *Lock) Has(folder string) bool { _, ok := l.byFolder[folder]; return ok }

// Get returns the entry of the folder. An entry whose bytes cannot be
// decoded reads as absent.
func (l *Lock) Get(folder string) (LockEntry, bool) {
	s, ok := l.byFolder[folder]
	if !ok {
		return LockEntry{}, false
	}
	return s.entry()
}

// Set records that folder holds the skill name with entry e. The folder
// leaves any entry it was in; it joins an entry of the same name with the
// same files and source (keeping that entry's install time), else gets a
// new one. Recording what is already recorded changes nothing.
func (l *Lock) Set(folder, name string, e LockEntry) {
	if s, ok := l.byFolder[folder]; ok && s.name == name {
		if cur, ok := s.entry(); ok && (cur == e || sameInstall(cur, e) && len(s.folders) > 1) {
			return
		}
	}
	l.Delete(folder)
	for _, s := range l.slots {
		if s.name != name {
			continue
		}
		if cur, ok := s.entry(); ok && sameInstall(cur, e) {
			s.folders = append(s.folders, folder)
			sort.Strings(s.folders)
			l.byFolder[folder] = s
			return
		}
	}
	s := &lockSlot{name: name, folders: []string{folder}, e: &e}
	l.slots = append(l.slots, s)
	l.byFolder[folder] = s
}

// Delete forgets the folder; an entry left with no folder goes.
func (l *Lock) Delete(folder string) {
	s, ok := l.byFolder[folder]
	if !ok {
		return
	}
	delete(l.byFolder, folder)
	if i := slices.Index(s.folders, folder); i >= 0 {
		s.folders = slices.Delete(slices.Clone(s.folders), i, i+1)
	}
	if len(s.folders) == 0 {
		l.slots = slices.DeleteFunc(l.slots, func(o *lockSlot) bool { return o == s })
	}
}

// Entries decodes the entry of every folder (for tests and tools that want them all).
func (l *Lock) Entries() map[string]LockEntry {
	out := make(map[string]LockEntry, len(l.byFolder))
	for f, s := range l.byFolder {
		if e, ok := s.entry(); ok {
			out[f] = e
		}
	}
	return out
}

// Names is the names of the recorded skills, sorted, each once.
func (l *Lock) Names() []string {
	var names []string
	for _, s := range l.slots {
		names = append(names, s.name)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// Folders is every recorded folder, sorted.
func (l *Lock) Folders() []string {
	out := make([]string, 0, len(l.byFolder))
	for f := range l.byFolder {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// LockedSkill is one entry of a lock.
type LockedSkill struct {
	Name    string
	Folders []string
	LockEntry
}

// Skills decodes every entry, sorted by name and then first folder. An
// entry that cannot be decoded is an error naming it.
func (l *Lock) Skills() ([]LockedSkill, error) {
	var out []LockedSkill
	for _, s := range l.sorted() {
		e, ok := s.entry()
		if !ok {
			return nil, fmt.Errorf("the entry of %s cannot be read; reinstall it with --force", s.name)
		}
		out = append(out, LockedSkill{Name: s.name, Folders: slices.Clone(s.folders), LockEntry: e})
	}
	return out, nil
}

func (l *Lock) sorted() []*lockSlot {
	out := slices.Clone(l.slots)
	sort.Slice(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].folders[0] < out[j].folders[0]
	})
	return out
}

// FolderKey is how a lock in lockDir names the skill folder dir: a slash
// path relative to lockDir (absolute when there is none).
func FolderKey(lockDir, dir string) string {
	if r, err := filepath.Rel(lockDir, dir); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(dir)
}

// FolderPath is the folder a lock in lockDir names by key.
func FolderPath(lockDir, key string) string {
	p := filepath.FromSlash(key)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(lockDir, p)
}

// ReadLock reads the lock of a --dir target root (root/.skillctl-lock.json);
// a missing file is an empty lock.
func ReadLock(root string) (*Lock, error) {
	return readLockAt(filepath.Join(root, LockFileName))
}

// readLockAt reads the lock file p; a missing file is an empty lock.
func readLockAt(p string) (*Lock, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return newLock(), nil
	}
	if err != nil {
		return nil, err
	}
	return parseLock(p, data)
}

// lockFile is the JSON shape of a lock file, either version.
type lockFile struct {
	LockVersion int               `json:"lockVersion"`
	Skills      []json.RawMessage `json:"skills"`
}

type lockFileV1 struct {
	LockfileVersion int                        `json:"lockfileVersion"`
	Skills          map[string]json.RawMessage `json:"skills"`
}

type lockEntryV2 struct {
	Name    string   `json:"name"`
	Folders []string `json:"folders"`
	LockEntry
}

func parseLock(p string, data []byte) (*Lock, error) {
	if l, ok := splitLock(data); ok {
		return l, nil
	}
	bad := func(err error) error {
		return fmt.Errorf("%s: not a valid lock file (%v); fix it or move it away, then run the command again", p, err)
	}
	var head struct {
		LockVersion     *int `json:"lockVersion"`
		LockfileVersion *int `json:"lockfileVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, bad(err)
	}
	switch {
	case head.LockVersion != nil && *head.LockVersion > lockVersion:
		return nil, fmt.Errorf("%s: lock version %d is newer than this skillctl understands (%d); upgrade skillctl", p, *head.LockVersion, lockVersion)
	case head.LockVersion != nil:
		var f lockFile
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, bad(err)
		}
		l := newLock()
		l.Read = 2
		for i, raw := range f.Skills {
			var e lockEntryV2
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, fmt.Errorf("%s: skill %d is not a valid entry (%v); fix it or move the file away, then run the command again", p, i+1, err)
			}
			if e.Name == "" || len(e.Folders) == 0 {
				return nil, fmt.Errorf("%s: skill %d has no name or no folders; fix it or move the file away, then run the command again", p, i+1)
			}
			for _, f := range e.Folders {
				if l.Has(f) {
					return nil, fmt.Errorf("%s: the folder %s is recorded twice; fix the file or move it away, then run the command again", p, f)
				}
				l.Set(f, e.Name, e.LockEntry)
			}
		}
		return l, nil
	case head.LockfileVersion != nil && *head.LockfileVersion == 1:
		return parseLockV1(p, data, "")
	case head.LockfileVersion != nil:
		return nil, fmt.Errorf("%s: lock file format %d is newer than this skillctl understands (%d); upgrade skillctl", p, *head.LockfileVersion, lockVersion)
	}
	return nil, bad(errors.New("neither lockVersion nor lockfileVersion is set"))
}

// parseLockV1 reads a version 1 lock: the lock of one target root, an
// entry per folder name. prefix is that root relative to the new lock's
// folder ("" when the lock stays in the root).
func parseLockV1(p string, data []byte, prefix string) (*Lock, error) {
	var f lockFileV1
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a valid lock file (%v); fix it or move it away, then run the command again", p, err)
	}
	l := newLock()
	l.Read = 1
	names := make([]string, 0, len(f.Skills))
	for n := range f.Skills {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var e LockEntry
		if err := json.Unmarshal(f.Skills[n], &e); err != nil {
			return nil, fmt.Errorf("%s: the entry of %s is not valid (%v); fix it or move the file away, then run the command again", p, n, err)
		}
		if e.Source.Kind == "folder" {
			e.Source.Kind = KindPath
		}
		k := path.Join(prefix, n)
		l.Set(k, n, e)
		l.byFolder[k].v1 = true
	}
	return l, nil
}

// upgradeV1 gives each entry read from a version 1 lock the canonical
// treeSha256, where its folders (relative to dir) still hold the files it
// recorded; an entry whose files changed keeps the old digest, which
// verify and restore still recognise.
func (l *Lock) upgradeV1(ctx context.Context, dir string) {
	for _, s := range l.slots {
		if !s.v1 {
			continue
		}
		e, ok := s.entry()
		if !ok {
			continue
		}
		sum := ""
		for _, f := range s.folders {
			m, err := treeManifest(ctx, FolderPath(dir, f))
			if err != nil || !m.matches(e.TreeSha256) || sum != "" && m.sum() != sum {
				sum = ""
				break
			}
			sum = m.sum()
		}
		if sum != "" {
			e.TreeSha256 = sum
			s.e, s.raw = &e, nil
		}
		s.v1 = false
	}
}

// Lock files are written in one layout (encodeLock); splitLock reads that
// layout without decoding the entries. Anything else (a file edited by
// hand, an older version) is decoded in full.
const (
	lockHead    = "{\n  \"lockVersion\": 2,\n  \"skills\": [\n"
	lockEmpty   = "{\n  \"lockVersion\": 2,\n  \"skills\": []\n}\n"
	lockTail    = "\n  ]\n}\n"
	entryHead   = "    {\n      \"name\": "
	foldersHead = ",\n      \"folders\": [\n"
	folderInd   = "        "
	foldersEnd  = "\n      ],\n"
	entryEnd    = "\n    }"
)

func splitLock(data []byte) (*Lock, bool) {
	if string(data) == lockEmpty {
		l := newLock()
		l.Read = 2
		return l, true
	}
	rest, ok := bytes.CutPrefix(data, []byte(lockHead))
	if !ok {
		return nil, false
	}
	l := newLock()
	l.Read = 2
	for {
		if rest, ok = bytes.CutPrefix(rest, []byte(entryHead)); !ok {
			return nil, false
		}
		s := &lockSlot{}
		var line []byte
		if line, rest, ok = bytes.Cut(rest, []byte(foldersHead)); !ok || !jsonString(line, &s.name) {
			return nil, false
		}
		var folders []byte
		if folders, rest, ok = bytes.Cut(rest, []byte(foldersEnd)); !ok {
			return nil, false
		}
		for f := range bytes.SplitSeq(folders, []byte(",\n")) {
			var name string
			if f, ok = bytes.CutPrefix(f, []byte(folderInd)); !ok || !jsonString(f, &name) || l.Has(name) {
				return nil, false
			}
			s.folders = append(s.folders, name)
			l.byFolder[name] = s
		}
		end := bytes.Index(rest, []byte(entryEnd))
		if end < 0 || len(s.folders) == 0 || s.name == "" {
			return nil, false
		}
		s.raw, rest = rest[:end+len(entryEnd)], rest[end+len(entryEnd):]
		l.slots = append(l.slots, s)
		switch {
		case bytes.HasPrefix(rest, []byte(",\n")):
			rest = rest[2:]
		case string(rest) == lockTail:
			return l, true
		default:
			return nil, false
		}
	}
}

// jsonString decodes a JSON string, quickly when it has no escapes.
func jsonString(b []byte, out *string) bool {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return false
	}
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b[1:len(b)-1], '"') < 0 {
		*out = string(b[1 : len(b)-1])
		return true
	}
	return json.Unmarshal(b, out) == nil
}

// encodeLock writes the lock in its one layout, the one
// json.MarshalIndent(lock, "", "  ") gives: entries sorted by name,
// untouched ones as their bytes were read.
func encodeLock(l *Lock) ([]byte, error) {
	if len(l.slots) == 0 {
		return []byte(lockEmpty), nil
	}
	size := len(lockHead) + len(lockTail)
	for _, s := range l.slots {
		size += len(entryHead) + len(s.name) + len(foldersHead) + len(foldersEnd) + len(s.raw) + 16
		for _, f := range s.folders {
			size += len(folderInd) + len(f) + 4
		}
		if s.raw == nil {
			size += 1024
		}
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	b.WriteString(lockHead)
	for i, s := range l.sorted() {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(entryHead)
		writeJSONString(b, s.name)
		b.WriteString(foldersHead)
		for j, f := range s.folders {
			if j > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(folderInd)
			writeJSONString(b, f)
		}
		b.WriteString(foldersEnd)
		if s.raw == nil {
			raw, err := json.MarshalIndent(s.e, "    ", "  ")
			if err != nil {
				return nil, err
			}
			s.raw = raw[2:] // without "{\n"
		}
		b.Write(s.raw)
	}
	b.WriteString(lockTail)
	return b.Bytes(), nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	if plainKey(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	q, _ := json.Marshal(s)
	b.Write(q)
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

// writeLockAt replaces the lock file p atomically (temp file, fsync, rename).
func writeLockAt(p string, l *Lock) error {
	data, err := encodeLock(l)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeLockFile(p, data, 0o644)
}

// writeLockFile writes the lock file; tests make it fail as a full disk would.
var writeLockFile = atomicfs.WriteFile

// rootLock is the held file lock of a folder (a target root, or the
// folder of a lock file).
type rootLock struct {
	dir string
	f   *os.File
}

// heldLocks are the folder locks an operation holds.
type heldLocks []*rootLock

func (h heldLocks) holds(dir string) bool {
	for _, l := range h {
		if l.dir == dir {
			return true
		}
	}
	return false
}

func (h heldLocks) release() {
	for _, l := range h {
		l.release()
	}
}

// lockDirs takes the file lock of each folder (created if needed), in a
// fixed order so that two operations never wait on each other, and then,
// holding them all, finishes or undoes what a crash interrupted in each
// root (Recover): whoever holds the locks sees a consistent state.
func lockDirs(ctx context.Context, dirs, roots []string) (heldLocks, error) {
	all := slices.Clone(dirs)
	for _, d := range roots {
		all = append(all, filepath.Clean(d))
	}
	sort.Strings(all)
	all = slices.Compact(all)
	var held heldLocks
	for _, d := range all {
		l, err := takeLock(ctx, d)
		if err != nil {
			held.release()
			return nil, err
		}
		held = append(held, l)
	}
	for _, r := range roots {
		if err := recoverRoot(filepath.Clean(r), held); err != nil {
			held.release()
			return nil, err
		}
	}
	return held, nil
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
			return &rootLock{dir: root, f: f}, nil
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

// tryLockDir takes dir's file lock if nobody holds it; nil when somebody does.
func tryLockDir(dir string) *rootLock {
	f, err := openLockTarget(dir)
	if err != nil {
		return nil
	}
	if ok, err := tryLock(f); err != nil || !ok {
		f.Close()
		return nil
	}
	return &rootLock{dir: dir, f: f}
}

func (l *rootLock) release() {
	_ = unlock(l.f)
	l.f.Close()
}

// Provenance is where the skill in the folder (a key of this lock) came
// from (nil when the lock does not record it).
func (l *Lock) Provenance(folder string) *skill.Provenance {
	e, ok := l.Get(folder)
	if !ok {
		return nil
	}
	return &skill.Provenance{Kind: e.Source.Kind, Location: e.Source.Location, SHA256: e.Source.SHA256, Commit: e.Source.Commit,
		Version: e.DeclaredVersion, InstalledAt: e.InstalledAt, TreeSHA256: e.TreeSha256}
}

// Provenances looks up, for each skill folder in dirs, where skillctl
// installed it from, in the locks that may record it: the --dir lock of
// its parent folder, the project lock at its repository top, and the
// user lock (userLock; "" for none), each read once. Folders skillctl did
// not install, and locks that cannot be read, give nothing.
func Provenances(dirs []string, userLock string) map[string]*skill.Provenance {
	out := map[string]*skill.Provenance{}
	locks := map[string]*Lock{}
	read := func(p string) *Lock {
		l, seen := locks[p]
		if !seen {
			if _, err := os.Lstat(p); err == nil {
				l, _ = readLockAt(p)
			}
			locks[p] = l
		}
		return l
	}
	tops := map[string]string{} // skills folder → its repository top
	for _, d := range dirs {
		root := filepath.Dir(d)
		candidates := []string{filepath.Join(root, LockFileName)}
		top, seen := tops[root]
		if !seen {
			top = agents.RepoTop(root)
			tops[root] = top
		}
		if top != "" {
			candidates = append(candidates, filepath.Join(top, ProjectLockName))
		}
		if userLock != "" {
			candidates = append(candidates, userLock)
		}
		for _, p := range candidates {
			if l := read(p); l != nil {
				if pr := l.Provenance(FolderKey(filepath.Dir(p), d)); pr != nil {
					out[d] = pr
					break
				}
			}
		}
	}
	return out
}
