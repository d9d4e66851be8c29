package install_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive"
	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
	"github.com/skillctl/skillctl/pkg/skill"
)

var fixedNow = func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC) }

func TestInstallLayouts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    []byte
		file    string
		skills  []string
		want    []string
		wantErr error
	}{
		{name: "SKILL.md at the top (zip)", data: at.Zip(at.Skill("", "top")), file: "top.skill", want: []string{"top"}},
		{name: "one top-level folder (tar.gz)", data: at.TarGz(at.Skill("folder-name", "one")), file: "one.tgz", want: []string{"one"}},
		{name: "tar", data: at.Tar(at.Skill("t", "t")), file: "t.tar", want: []string{"t"}},
		{name: "several skills", data: at.Zip(append(at.Skill("pack/a", "a"), at.Skill("pack/nested/b", "b")...)), file: "many.zip", want: []string{"a", "b"}},
		{name: "several skills, --skill picks", data: at.Zip(append(at.Skill("pack/a", "a"), at.Skill("pack/nested/b", "b")...)), file: "many.zip", skills: []string{"b"}, want: []string{"b"}},
		{name: "--skill names a missing skill", data: at.Zip(at.Skill("a", "a")), file: "a.zip", skills: []string{"zzz"}, wantErr: skill.ErrNotFound},
		{name: "a skill's own subfolders belong to it", data: at.Zip(append(at.Skill("outer", "outer"), at.Skill("outer/examples/inner", "inner")...)), file: "o.zip", want: []string{"outer"}},
		{name: "no SKILL.md", data: at.Zip([]at.Entry{{Name: "readme.md", Body: "x"}}), file: "none.zip", wantErr: install.ErrNoSkill},
		{name: "named .zip but plain text", data: []byte("hello, I am not a zip\n"), file: "fake.zip", wantErr: archive.ErrNotArchive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "root")
			src := writeArchive(t, dir, tc.file, tc.data)
			res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}, Skills: tc.skills, Now: fixedNow})
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.Empty(t, stagingLeft(t, root))
				return
			}
			require.NoError(t, err)
			var names []string
			for _, s := range res.Skills {
				names = append(names, s.Name)
				assert.Equal(t, install.StatusInstalled, s.Status)
				assert.FileExists(t, filepath.Join(root, s.Name, "SKILL.md"))
			}
			assert.Equal(t, tc.want, names)
			lock := requireLockMatchesDisk(t, root)
			assert.Equal(t, len(tc.want), lock.Len())
			assert.Empty(t, stagingLeft(t, root))
		})
	}
}

func TestInstallRecordsLockEntry(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	entries := at.Skill("demo", "demo")
	entries[0].Body = "---\nname: demo\ndescription: Demo.\nversion: 1.2.0\n---\nBody.\n"
	src := writeArchive(t, dir, "demo.zip", at.Zip(entries))
	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}, Now: fixedNow})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	e := res.Skills[0]
	assert.Equal(t, "2025-03-04T05:06:07Z", e.InstalledAt)
	assert.Equal(t, "1.2.0", e.DeclaredVersion)
	assert.Equal(t, install.KindArchive, e.Source.Kind)
	assert.Equal(t, src, e.Source.Location)
	assert.Len(t, e.Source.SHA256, 64)
	assert.Len(t, e.SkillMdSha256, 64)
	assert.Equal(t, 3, e.FileInventory.TotalFiles)
	assert.True(t, e.FileInventory.HasScripts)
	lock := requireLockMatchesDisk(t, root)
	got, _ := lock.Get("demo")
	assert.Equal(t, e.LockEntry, got)

	if runtime.GOOS != "windows" {
		fi, err := os.Stat(filepath.Join(root, "demo/scripts/run.sh"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
		fi, err = os.Stat(filepath.Join(root, "demo/SKILL.md"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	}
}

func TestInstallFolder(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "my-skill")
	require.NoError(t, os.MkdirAll(filepath.Join(src, "scripts", "__pycache__"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "SKILL.md"), []byte("---\nname: my-skill\ndescription: Mine.\n---\nBody.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "scripts", "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "scripts", "__pycache__", "x.pyc"), []byte("junk"), 0o644))
	root := filepath.Join(dir, "root")
	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, install.KindPath, res.Skills[0].Source.Kind)
	assert.FileExists(t, filepath.Join(root, "my-skill", "scripts", "run.sh"))
	assert.NoDirExists(t, filepath.Join(root, "my-skill", "scripts", "__pycache__"))
	assert.Equal(t, 1, res.Ignored)
}

func TestInstallRefusesInvalidSkill(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	src := writeArchive(t, dir, "bad.zip", at.Zip([]at.Entry{{Name: "bad/SKILL.md", Body: "---\nname: bad\n---\nNo description.\n"}}))
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	var be *install.BundleError
	require.ErrorAs(t, err, &be)
	assert.ErrorIs(t, err, install.ErrInvalid)
	assert.Contains(t, err.Error(), "cannot install bad")
	assert.Contains(t, err.Error(), "no description")
	assert.NoDirExists(t, filepath.Join(root, "bad"))
	assert.Empty(t, stagingLeft(t, root))
}

func TestConflictRules(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	a := writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "first\n")))
	b := writeArchive(t, dir, "b.zip", at.Zip(goodSkill("demo", "second\n")))

	// A folder skillctl did not install is not replaced without --force.
	require.NoError(t, os.MkdirAll(filepath.Join(root, "demo"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "demo", "SKILL.md"), []byte("mine"), 0o644))
	before := snapshot(t, root)
	_, err := run(t, install.Options{Sources: []string{a}, Roots: []string{root}})
	require.ErrorIs(t, err, install.ErrConflict)
	assert.Contains(t, err.Error(), "not installed by skillctl")
	assert.Equal(t, before, snapshot(t, root))

	res, err := run(t, install.Options{Sources: []string{a}, Roots: []string{root}, Force: true})
	require.NoError(t, err)
	assert.Equal(t, install.StatusUpdated, res.Skills[0].Status)

	// The same files again are unchanged; new files from the same source an update.
	res, err = run(t, install.Options{Sources: []string{a}, Roots: []string{root}})
	require.NoError(t, err)
	assert.Equal(t, install.StatusUnchanged, res.Skills[0].Status)
	writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "first, revised\n")))
	res, err = run(t, install.Options{Sources: []string{a}, Roots: []string{root}})
	require.NoError(t, err)
	assert.Equal(t, install.StatusUpdated, res.Skills[0].Status)

	// Another source is a conflict.
	before = snapshot(t, root)
	_, err = run(t, install.Options{Sources: []string{b}, Roots: []string{root}})
	require.ErrorIs(t, err, install.ErrConflict)
	assert.Contains(t, err.Error(), "was installed from "+a)
	assert.Equal(t, before, snapshot(t, root))

	_, err = run(t, install.Options{Sources: []string{b}, Roots: []string{root}, Force: true})
	require.NoError(t, err)
	body, err := os.ReadFile(filepath.Join(root, "demo", "references", "NOTES.md"))
	require.NoError(t, err)
	assert.Equal(t, "second\n", string(body))
	requireLockMatchesDisk(t, root)

	// Two sources with the same skill name in one run.
	_, err = run(t, install.Options{Sources: []string{a, b}, Roots: []string{t.TempDir()}})
	assert.ErrorContains(t, err, "into the same folder demo")
}

func TestDryRunChangesNothing(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	src := writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "x\n")))
	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}, DryRun: true})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, install.StatusWouldInstall, res.Skills[0].Status)
	assert.NoDirExists(t, root)

	_, err = run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.NoError(t, err)
	before := snapshot(t, root)
	res, err = run(t, install.Options{Sources: []string{src}, Roots: []string{root}, DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, install.StatusUnchanged, res.Skills[0].Status)
	writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "y\n")))
	res, err = run(t, install.Options{Sources: []string{src}, Roots: []string{root}, DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, install.StatusWouldUpdate, res.Skills[0].Status)
	assert.Equal(t, before, snapshot(t, root))
}

func TestSHA256OfLocalArchive(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	src := writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "x\n")))
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}, SHA256: "0000000000000000000000000000000000000000000000000000000000000000"})
	require.ErrorIs(t, err, install.ErrChecksum)
	assert.NoDirExists(t, filepath.Join(root, "demo"))
	_, err = run(t, install.Options{Sources: []string{src}, Roots: []string{root}, SHA256: "abc"})
	assert.ErrorContains(t, err, "not a sha256")
}

func TestConcurrentInstallsBothRecorded(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	const n = 4
	var srcs []string
	for i := range n {
		name := string(rune('a'+i)) + "-skill"
		srcs = append(srcs, writeArchive(t, dir, name+".zip", at.Zip(goodSkill(name, "x\n"))))
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = install.New(install.Options{Sources: []string{srcs[i]}, Roots: []string{root}}).Run(context.Background())
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	lock := requireLockMatchesDisk(t, root)
	assert.Equal(t, n, lock.Len())
	assert.Empty(t, stagingLeft(t, root))
}

func TestMultipleRoots(t *testing.T) {
	dir := t.TempDir()
	r1, r2 := filepath.Join(dir, "r1"), filepath.Join(dir, "r2")
	src := writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "x\n")))
	// r2 holds an unmanaged demo: nothing is installed anywhere.
	require.NoError(t, os.MkdirAll(filepath.Join(r2, "demo"), 0o755))
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{r1, r2}})
	require.ErrorIs(t, err, install.ErrConflict)
	assert.NoDirExists(t, filepath.Join(r1, "demo"))
	require.NoError(t, os.RemoveAll(filepath.Join(r2, "demo")))
	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{r1, r2}})
	require.NoError(t, err)
	assert.Len(t, res.Skills, 2)
}

func TestErrorsAreWrapped(t *testing.T) {
	_, err := run(t, install.Options{Sources: []string{filepath.Join(t.TempDir(), "missing.zip")}, Roots: []string{t.TempDir()}})
	assert.True(t, errors.Is(err, skill.ErrNotFound), "%v", err)
}
