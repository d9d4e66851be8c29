package install_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
	gitsource "github.com/skillctl/skillctl/pkg/source"
)

type lockV2 struct {
	LockVersion int `json:"lockVersion"`
	Skills      []struct {
		Name    string   `json:"name"`
		Folders []string `json:"folders"`
		install.LockEntry
	} `json:"skills"`
}

func readLockV2(t *testing.T, p string) lockV2 {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	var l lockV2
	require.NoError(t, json.Unmarshal(data, &l))
	require.Equal(t, 2, l.LockVersion)
	return l
}

// A scope's lock has one entry per skill naming every agent folder it
// was copied into; uninstalling from one folder keeps the entry for the
// others.
func TestScopeLockFolders(t *testing.T) {
	dir := t.TempDir()
	top := filepath.Join(dir, "proj")
	roots := []string{filepath.Join(top, ".claude", "skills"), filepath.Join(top, ".agents", "skills")}
	lockFile := filepath.Join(top, install.ProjectLockName)
	src := writeArchive(t, dir, "demo.zip", at.Zip(goodSkill("demo", "hello\n")))
	_, err := run(t, install.Options{Sources: []string{src}, Roots: roots, LockFile: lockFile})
	require.NoError(t, err)
	l := readLockV2(t, lockFile)
	require.Len(t, l.Skills, 1)
	assert.Equal(t, "demo", l.Skills[0].Name)
	assert.Equal(t, []string{".agents/skills/demo", ".claude/skills/demo"}, l.Skills[0].Folders)
	tree, err := install.TreeSHA256(context.Background(), filepath.Join(roots[0], "demo"))
	require.NoError(t, err)
	assert.Equal(t, tree, l.Skills[0].TreeSha256)
	assert.NoFileExists(t, filepath.Join(roots[0], install.LockFileName), "no lock in the agent folders")

	vs, err := install.Verify(context.Background(), install.LockScope{LockFile: lockFile, Roots: roots}, nil)
	require.NoError(t, err)
	require.Len(t, vs, 2)
	assert.False(t, install.Drift(vs))

	_, err = install.NewUninstaller(install.UninstallOptions{Names: []string{"demo"}, Roots: roots[:1], LockFile: lockFile}).Run(context.Background())
	require.NoError(t, err)
	l = readLockV2(t, lockFile)
	require.Len(t, l.Skills, 1)
	assert.Equal(t, []string{".agents/skills/demo"}, l.Skills[0].Folders)
	assert.DirExists(t, filepath.Join(roots[1], "demo"))
}

// A version 1 lock in an agent folder is taken into the scope's lock by
// the next operation, with the canonical treeSha256, and removed.
func TestScopeLockTakesInVersion1(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "home", ".claude", "skills")
	src := writeArchive(t, dir, "old.zip", at.Zip(goodSkill("old", "old\n")))
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.NoError(t, err)
	canonical, err := install.TreeSHA256(context.Background(), filepath.Join(root, "old"))
	require.NoError(t, err)
	// What the version 1 format recorded: the folders too, symlink targets in the clear.
	legacy := legacyTreeSHA256(t, filepath.Join(root, "old"))
	require.NotEqual(t, canonical, legacy)
	v1 := `{
  "lockfileVersion": 1,
  "skills": {
    "old": {
      "version": "20260101-000000",
      "declaredVersion": "",
      "source": {"kind": "archive", "location": "` + src + `"},
      "installedAt": "2026-01-01T00:00:00Z",
      "skillMdSha256": "m",
      "treeSha256": "` + legacy + `"
    }
  }
}
`
	require.NoError(t, os.WriteFile(filepath.Join(root, install.LockFileName), []byte(v1), 0o644))
	lockFile := filepath.Join(dir, "home", ".config", "skillctl", install.UserLockName)
	sc := install.LockScope{LockFile: lockFile, Roots: []string{root}}

	// Read only: verify sees the old entry and the files match it.
	vs, err := install.Verify(context.Background(), sc, nil)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, install.VerifyOK, vs[0].Status)
	assert.NoFileExists(t, lockFile, "verify writes nothing")

	// The next install takes it in.
	src2 := writeArchive(t, dir, "new.zip", at.Zip(goodSkill("new", "new\n")))
	_, err = run(t, install.Options{Sources: []string{src2}, Roots: []string{root}, LockFile: lockFile, LegacyRoots: []string{root}})
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(root, install.LockFileName))
	l := readLockV2(t, lockFile)
	require.Len(t, l.Skills, 2)
	assert.Equal(t, "new", l.Skills[0].Name)
	assert.Equal(t, "old", l.Skills[1].Name)
	assert.Equal(t, []string{"../../.claude/skills/old"}, l.Skills[1].Folders)
	assert.Equal(t, canonical, l.Skills[1].TreeSha256, "the digest is now canonical")
	assert.Equal(t, "2026-01-01T00:00:00Z", l.Skills[1].InstalledAt)

	// --frozen on a lock that would be rewritten fails.
	require.NoError(t, os.WriteFile(filepath.Join(root, install.LockFileName), []byte(v1), 0o644))
	require.NoError(t, os.Remove(lockFile))
	_, err = install.New(install.Options{Roots: []string{root}, LockFile: lockFile, LegacyRoots: []string{root}}).
		Restore(context.Background(), install.RestoreOptions{Frozen: true})
	require.ErrorIs(t, err, install.ErrFrozen)
	assert.ErrorContains(t, err, "rewritten as version 2")
	// Without it, the restore takes it in: the skill is there, unchanged.
	res, err := install.New(install.Options{Roots: []string{root}, LockFile: lockFile, LegacyRoots: []string{root}}).
		Restore(context.Background(), install.RestoreOptions{})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, install.StatusUnchanged, res.Skills[0].Status)
}

// legacyTreeSHA256 is the digest a version 1 lock recorded, computed as
// that version did.
func legacyTreeSHA256(t *testing.T, dir string) string {
	t.Helper()
	sum, err := install.LegacyTreeSHA256(dir)
	require.NoError(t, err)
	return sum
}

// outdated asks an archive URL for its digest now.
func TestOutdatedArchiveURL(t *testing.T) {
	v1 := at.Zip(goodSkill("web", "one\n"))
	v2 := at.Zip(goodSkill("web", "two\n"))
	var cur atomic.Pointer[[]byte]
	cur.Store(&v1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(*cur.Load()) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	root := filepath.Join(dir, "skills")
	_, err := run(t, install.Options{Sources: []string{srv.URL + "/web.zip"}, Roots: []string{root}})
	require.NoError(t, err)
	sc := install.LockScope{LockFile: filepath.Join(root, install.LockFileName), Roots: []string{root}}
	od, err := install.CheckOutdated(context.Background(), sc, nil, gitsource.FetchOptions{})
	require.NoError(t, err)
	require.Len(t, od, 1)
	assert.Equal(t, install.OutdatedCurrent, od[0].Status)
	cur.Store(&v2)
	od, err = install.CheckOutdated(context.Background(), sc, nil, gitsource.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, install.OutdatedNewer, od[0].Status)
	assert.NotEqual(t, od[0].Current, od[0].Latest)
	plans := install.PlanUpdates(od)
	require.Len(t, plans, 1)
	assert.Equal(t, []string{root}, plans[0].Roots)
	srv.Close()
	od, err = install.CheckOutdated(context.Background(), sc, nil, gitsource.FetchOptions{})
	require.NoError(t, err)
	assert.Equal(t, install.OutdatedError, od[0].Status, "a server that is gone is that skill's error")
}

// Jobs are one transaction: a job that is refused leaves the others
// uninstalled too, and the lock as it was.
func TestJobsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	lockFile := filepath.Join(dir, "skills.lock")
	srcA := writeArchive(t, dir, "a.zip", at.Zip(goodSkill("alpha", "a\n")))
	srcB := writeArchive(t, dir, "b.zip", at.Zip(goodSkill("beta", "b\n")))
	// beta's folder in b is not skillctl's: the second job conflicts.
	require.NoError(t, os.MkdirAll(filepath.Join(b, "beta"), 0o755))
	jobs := []install.Job{{Sources: []string{srcA}, Roots: []string{a}}, {Sources: []string{srcB}, Roots: []string{b}}}
	_, err := install.New(install.Options{Jobs: jobs, LockFile: lockFile}).Run(context.Background())
	require.ErrorIs(t, err, install.ErrConflict)
	assert.NoDirExists(t, filepath.Join(a, "alpha"))
	assert.NoFileExists(t, lockFile)
	require.NoError(t, os.Remove(filepath.Join(b, "beta")))
	res, err := install.New(install.Options{Jobs: jobs, LockFile: lockFile}).Run(context.Background())
	require.NoError(t, err)
	require.Len(t, res.Skills, 2)
	l := readLockV2(t, lockFile)
	require.Len(t, l.Skills, 2)
	assert.Equal(t, []string{"a/alpha"}, l.Skills[0].Folders)
	assert.Equal(t, []string{"b/beta"}, l.Skills[1].Folders)
}

// A skill restored long after it was first installed keeps its install
// time; verify still names only the file edited since the restore.
func TestVerifyNamesEditsAfterARestore(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "skills")
	src := writeArchive(t, dir, "demo.zip", at.Zip(goodSkill("demo", "hello\n")))
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}, Now: fixedNow})
	require.NoError(t, err)
	skillMd := filepath.Join(root, "demo", "SKILL.md")
	require.NoError(t, os.WriteFile(skillMd, []byte("---\nname: demo\ndescription: Edited.\n---\n"), 0o644))
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(skillMd, later, later))
	vs, err := install.Verify(context.Background(), install.LockScope{LockFile: filepath.Join(root, install.LockFileName), Roots: []string{root}}, nil)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, install.VerifyModified, vs[0].Status)
	assert.Equal(t, "changed: SKILL.md", vs[0].Changes)
}
