package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleEntry(i int) LockEntry {
	return LockEntry{DeclaredVersion: strings.Repeat("1", i%3), InstalledAt: "2026-01-01T00:00:00Z",
		Source:     SourceRef{Kind: KindArchive, Location: "/x/<a&b>.zip", SHA256: "ab"},
		TreeSha256: "t" + strings.Repeat("x", i), SkillMdSha256: "m"}
}

type wantEntry struct {
	Name    string   `json:"name"`
	Folders []string `json:"folders"`
	LockEntry
}

type wantLock struct {
	LockVersion int         `json:"lockVersion"`
	Skills      []wantEntry `json:"skills"`
}

func writeTestLock(t *testing.T, root string, l *Lock) {
	t.Helper()
	require.NoError(t, writeLockAt(filepath.Join(root, LockFileName), l))
}

// The lock is written in the layout json.MarshalIndent gives the whole
// file, so files written before and after read the same way.
func TestLockLayoutIsMarshalIndent(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		l := newLock()
		want := wantLock{LockVersion: 2, Skills: []wantEntry{}}
		for i := range n {
			name := []string{"a-skill", "b", "ünï\"code"}[i]
			folders := []string{".claude/skills/" + name}
			if i == 1 {
				folders = append([]string{".agents/skills/" + name}, folders...)
			}
			for _, f := range folders {
				l.Set(f, name, sampleEntry(i))
			}
			want.Skills = append(want.Skills, wantEntry{Name: name, Folders: folders, LockEntry: sampleEntry(i)})
		}
		got, err := encodeLock(l)
		require.NoError(t, err)
		wantData, err := json.MarshalIndent(want, "", "  ")
		require.NoError(t, err)
		assert.Equal(t, string(wantData)+"\n", string(got))
	}
}

// One entry holds every folder with the same files from the same source;
// a folder that gets other files leaves it for an entry of its own.
func TestLockFolders(t *testing.T) {
	l := newLock()
	e := sampleEntry(0)
	l.Set("a/pdf", "pdf", e)
	later := e
	later.InstalledAt = "2026-02-02T00:00:00Z"
	l.Set("b/pdf", "pdf", later)
	require.Equal(t, 1, l.Len())
	got, _ := l.Get("b/pdf")
	assert.Equal(t, e.InstalledAt, got.InstalledAt, "the entry keeps its first install time")
	other := sampleEntry(1)
	l.Set("b/pdf", "pdf", other)
	require.Equal(t, 2, l.Len())
	skills, err := l.Skills()
	require.NoError(t, err)
	assert.Equal(t, []string{"a/pdf"}, skills[0].Folders)
	assert.Equal(t, []string{"b/pdf"}, skills[1].Folders)
	l.Delete("a/pdf")
	assert.Equal(t, 1, l.Len())
	assert.Equal(t, []string{"pdf"}, l.Names())
	l.Delete("b/pdf")
	assert.Equal(t, 0, l.Len())
}

// Entries an operation does not touch keep their bytes; the file still
// decodes as JSON; a lock edited by hand (another layout) is read in full.
func TestLockReadOnceWriteOnce(t *testing.T) {
	root := t.TempDir()
	l := newLock()
	for i, n := range []string{"a", "b", "c"} {
		l.Set(n, n, sampleEntry(i))
	}
	writeTestLock(t, root, l)
	read, err := ReadLock(root)
	require.NoError(t, err)
	for _, n := range []string{"a", "b", "c"} {
		require.NotNil(t, read.byFolder[n].raw, "%s is kept as read", n)
		require.Nil(t, read.byFolder[n].e, "%s is not decoded", n)
	}
	e, ok := read.Get("b")
	require.True(t, ok)
	assert.Equal(t, sampleEntry(1), e)
	read.Delete("a")
	read.Set("d", "d", sampleEntry(2))
	read.Set("c2", "c", sampleEntry(2)) // joins c's entry without decoding the rest
	writeTestLock(t, root, read)
	data, err := os.ReadFile(filepath.Join(root, LockFileName))
	require.NoError(t, err)
	var f wantLock
	require.NoError(t, json.Unmarshal(data, &f))
	assert.Equal(t, []wantEntry{{"b", []string{"b"}, sampleEntry(1)}, {"c", []string{"c", "c2"}, sampleEntry(2)}, {"d", []string{"d"}, sampleEntry(2)}}, f.Skills)

	// Another layout (one line) is read in full, and written back in ours.
	compact, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, LockFileName), compact, 0o644))
	again, err := ReadLock(root)
	require.NoError(t, err)
	assert.Equal(t, read.Entries(), again.Entries())
	writeTestLock(t, root, again)
	rewritten, err := os.ReadFile(filepath.Join(root, LockFileName))
	require.NoError(t, err)
	assert.Equal(t, string(data), string(rewritten))

	// A broken file or entry is an error naming the file.
	for body, msg := range map[string]string{
		`{"lockVersion": 2, "skills": [{"name": "a", "folders": ["a"], "treeSha256": 5}]}`:                 "skill 1 is not a valid entry",
		`{"lockVersion": 2, "skills": [{"name": "a", "folders": []}]}`:                                     "skill 1 has no name or no folders",
		`{"lockVersion": 2, "skills": [{"name": "a", "folders": ["a"]}, {"name": "b", "folders": ["a"]}]}`: "the folder a is recorded twice",
		`{"lockVersion": 3, "skills": []}`:                                                                 "newer than this skillctl understands",
		`{"lockfileVersion": 1, "skills": {"a": {"treeSha256": 5}}}`:                                       "the entry of a is not valid",
		`{"lockfileVersion": 1, "skills": {`:                                                               "not a valid lock file",
		`{"skills": []}`:                                                                                   "neither lockVersion nor lockfileVersion",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(root, LockFileName), []byte(body), 0o644))
		_, err = ReadLock(root)
		assert.ErrorContains(t, err, msg, body)
		assert.ErrorContains(t, err, filepath.Join(root, LockFileName), body)
	}
}

// A version 1 lock reads as version 2: an entry per folder name, the
// kind folder called path, the install stamp dropped.
func TestLockVersion1(t *testing.T) {
	root := t.TempDir()
	v1 := `{
  "lockfileVersion": 1,
  "skills": {
    "pdf": {
      "version": "20260101-000000",
      "declaredVersion": "",
      "source": {"kind": "folder", "location": "/src/pdf"},
      "installedAt": "2026-01-01T00:00:00Z",
      "skillMdSha256": "m",
      "treeSha256": "t"
    }
  }
}
`
	require.NoError(t, os.WriteFile(filepath.Join(root, LockFileName), []byte(v1), 0o644))
	l, err := ReadLock(root)
	require.NoError(t, err)
	assert.Equal(t, 1, l.Read)
	e, ok := l.Get("pdf")
	require.True(t, ok)
	assert.Equal(t, LockEntry{Source: SourceRef{Kind: KindPath, Location: "/src/pdf"}, InstalledAt: "2026-01-01T00:00:00Z", SkillMdSha256: "m", TreeSha256: "t"}, e)

	// Merged into a scope lock, its folders are relative to that lock.
	scope := filepath.Join(t.TempDir(), "skillctl.lock")
	sl, err := openScopeLock(scope, []string{root})
	require.NoError(t, err)
	assert.Equal(t, []string{FolderKey(filepath.Dir(scope), filepath.Join(root, "pdf"))}, sl.Folders())
	require.NoError(t, sl.write())
	assert.NoFileExists(t, filepath.Join(root, LockFileName), "the older lock goes once the new one is written")
}
