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
	return LockEntry{Version: "20260101-000000", DeclaredVersion: strings.Repeat("1", i%3), InstalledAt: "2026-01-01T00:00:00Z",
		Source:     SourceRef{Kind: KindArchive, Location: "/x/<a&b>.zip", SHA256: "ab"},
		TreeSha256: "t", SkillMdSha256: "m"}
}

// The lock is written in the layout json.MarshalIndent gives the whole
// file, so files written before and after read the same way.
func TestLockLayoutIsMarshalIndent(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		l := newLock()
		want := struct {
			LockfileVersion int                  `json:"lockfileVersion"`
			Skills          map[string]LockEntry `json:"skills"`
		}{1, map[string]LockEntry{}}
		for i := range n {
			name := []string{"b", "a-skill", "ünï\"code"}[i]
			l.Set(name, sampleEntry(i))
			want.Skills[name] = sampleEntry(i)
		}
		got, err := encodeLock(l)
		require.NoError(t, err)
		wantData, err := json.MarshalIndent(want, "", "  ")
		require.NoError(t, err)
		assert.Equal(t, string(wantData)+"\n", string(got))
	}
}

// Entries an operation does not touch keep their bytes; the file still
// decodes as JSON; a lock edited by hand (another layout) is read in full.
func TestLockReadOnceWriteOnce(t *testing.T) {
	root := t.TempDir()
	l := newLock()
	for i, n := range []string{"a", "b", "c"} {
		l.Set(n, sampleEntry(i))
	}
	require.NoError(t, writeLock(root, l))
	read, err := ReadLock(root)
	require.NoError(t, err)
	for _, n := range []string{"a", "b", "c"} {
		require.NotNil(t, read.slots[n].raw, "%s is kept as read, not decoded", n)
	}
	e, ok := read.Get("b")
	require.True(t, ok)
	assert.Equal(t, sampleEntry(1), e)
	read.Delete("a")
	read.Set("d", sampleEntry(2))
	require.NoError(t, writeLock(root, read))
	data, err := os.ReadFile(filepath.Join(root, LockFileName))
	require.NoError(t, err)
	var f struct {
		LockfileVersion int                  `json:"lockfileVersion"`
		Skills          map[string]LockEntry `json:"skills"`
	}
	require.NoError(t, json.Unmarshal(data, &f))
	assert.Equal(t, map[string]LockEntry{"b": sampleEntry(1), "c": sampleEntry(2), "d": sampleEntry(2)}, f.Skills)

	// Another layout (one line) is read in full, and written back in ours.
	compact, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, LockFileName), compact, 0o644))
	again, err := ReadLock(root)
	require.NoError(t, err)
	assert.Equal(t, f.Skills, again.Entries())
	require.NoError(t, writeLock(root, again))
	rewritten, err := os.ReadFile(filepath.Join(root, LockFileName))
	require.NoError(t, err)
	assert.Equal(t, string(data), string(rewritten))

	// A broken file or entry is an error naming the file.
	require.NoError(t, os.WriteFile(filepath.Join(root, LockFileName), []byte(`{"lockfileVersion": 1, "skills": {"a": {"treeSha256": 5}}}`), 0o644))
	_, err = ReadLock(root)
	assert.ErrorContains(t, err, "the entry of a is not valid")
	require.NoError(t, os.WriteFile(filepath.Join(root, LockFileName), []byte(`{"lockfileVersion": 1, "skills": {`), 0o644))
	_, err = ReadLock(root)
	assert.ErrorContains(t, err, "not a valid lock file")
}
