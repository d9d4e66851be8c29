package install_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
	"github.com/skillctl/skillctl/pkg/pack"
	"github.com/skillctl/skillctl/pkg/skill"
)

func TestUninstall(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "skills")
	src := writeArchive(t, dir, "two.zip", at.Zip(append(at.Skill("p/a", "a"), at.Skill("p/b", "b")...)))
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "hand-made"), 0o755))

	uninstall := func(opts install.UninstallOptions) ([]install.Removed, error) {
		opts.Roots = []string{root}
		return install.NewUninstaller(opts).Run(context.Background())
	}
	// dry run
	out, err := uninstall(install.UninstallOptions{Names: []string{"a"}, DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, install.StatusWouldUninstall, out[0].Status)
	assert.DirExists(t, filepath.Join(root, "a"))

	out, err = uninstall(install.UninstallOptions{Names: []string{"a"}})
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, install.StatusUninstalled, out[0].Status)
	assert.NoDirExists(t, filepath.Join(root, "a"))
	lock := requireLockMatchesDisk(t, root)
	assert.False(t, lock.Has("a"))
	assert.True(t, lock.Has("b"))
	assert.Empty(t, stagingLeft(t, root))

	_, err = uninstall(install.UninstallOptions{Names: []string{"a"}})
	assert.ErrorIs(t, err, skill.ErrNotFound)

	// Not installed by skillctl: refused, and nothing else removed either.
	_, err = uninstall(install.UninstallOptions{Names: []string{"b", "hand-made"}})
	assert.ErrorIs(t, err, install.ErrConflict)
	assert.DirExists(t, filepath.Join(root, "b"))
	assert.DirExists(t, filepath.Join(root, "hand-made"))

	out, err = uninstall(install.UninstallOptions{Names: []string{"b", "hand-made"}, Force: true})
	require.NoError(t, err)
	assert.Len(t, out, 2)
	assert.NoDirExists(t, filepath.Join(root, "hand-made"))
	lock = requireLockMatchesDisk(t, root)
	assert.Zero(t, lock.Len())
}

// A packed skill installs back to the same files.
func TestPackThenInstallRestores(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "round-trip")
	files := map[string]string{
		"SKILL.md":              "---\nname: round-trip\ndescription: Goes there and back.\n---\nBody.\n",
		"scripts/run.sh":        "#!/bin/sh\necho hi\n",
		"references/REF.md":     "ref\n",
		"assets/deep/x.tmpl":    "{{.}}\n",
		"node_modules/x/y.js":   "left out",
		"scripts/cache.pyc":     "left out",
		"assets/deep/.DS_Store": "left out",
	}
	for rel, body := range files {
		p := filepath.Join(src, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.Chmod(filepath.Join(src, "scripts", "run.sh"), 0o755))
	for _, f := range []pack.Format{pack.FormatZip, pack.FormatTarGz} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			_, err := pack.Write(context.Background(), &buf, src, pack.Options{Format: f})
			require.NoError(t, err)
			arch := writeArchive(t, t.TempDir(), "rt.pkg", buf.Bytes())
			root := filepath.Join(t.TempDir(), "skills")
			_, err = run(t, install.Options{Sources: []string{arch}, Roots: []string{root}})
			require.NoError(t, err)
			got := snapshot(t, filepath.Join(root, "round-trip"))
			want := map[string]string{}
			for k, v := range snapshot(t, src) {
				if k == "node_modules" || filepath.Base(k) == ".DS_Store" || filepath.Ext(k) == ".pyc" || filepath.Dir(k) == "node_modules" || filepath.Dir(filepath.Dir(k)) == "node_modules" {
					continue
				}
				want[k] = v
			}
			assert.Equal(t, want, got)
		})
	}
}
