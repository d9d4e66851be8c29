package pack_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/pack"
)

func writeSkill(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"SKILL.md":              "---\nname: demo-skill\ndescription: Demo.\n---\nBody.\n",
		"scripts/run.sh":        "#!/bin/sh\necho hi\n",
		"references/REF.md":     "ref\n",
		"a.txt":                 "a\n",
		"scripts/__pycache__/x": "junk",
		"scripts/mod.pyc":       "junk",
		"node_modules/m/i.js":   "junk",
		".DS_Store":             "junk",
		".git/HEAD":             "junk",
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
	require.NoError(t, os.Chmod(filepath.Join(dir, "scripts/run.sh"), 0o700))
}

func TestWriteIsReproducible(t *testing.T) {
	for _, f := range []pack.Format{pack.FormatZip, pack.FormatTarGz} {
		t.Run(string(f), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "folder")
			writeSkill(t, dir)
			var a, b bytes.Buffer
			sumA, err := pack.Write(context.Background(), &a, dir, pack.Options{Format: f})
			require.NoError(t, err)
			// Touch everything: new times must not change the bytes.
			later := time.Now().Add(time.Hour)
			require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				return os.Chtimes(p, later, later)
			}))
			sumB, err := pack.Write(context.Background(), &b, dir, pack.Options{Format: f})
			require.NoError(t, err)
			assert.Equal(t, a.Bytes(), b.Bytes())
			assert.Equal(t, sumA, sumB)
			h := sha256.Sum256(a.Bytes())
			assert.Equal(t, hex.EncodeToString(h[:]), sumA)

			// Read it back: one top folder named after the skill, sorted, clutter left out.
			var names []string
			modes := map[string]fs.FileMode{}
			_, err = archive.Walk(context.Background(), bytes.NewReader(a.Bytes()), archive.Options{}, func(e *archive.Entry) error {
				names = append(names, e.Name)
				modes[e.Name] = e.RawMode.Perm()
				assert.True(t, e.ModTime.Equal(pack.ModTime), "%s has a fixed time, not %v", e.Name, e.ModTime)
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, []string{"demo-skill", "demo-skill/SKILL.md", "demo-skill/a.txt",
				"demo-skill/references", "demo-skill/references/REF.md",
				"demo-skill/scripts", "demo-skill/scripts/run.sh"}, names)
			if runtime.GOOS != "windows" {
				assert.Equal(t, fs.FileMode(0o755), modes["demo-skill/scripts/run.sh"])
			}
			assert.Equal(t, fs.FileMode(0o644), modes["demo-skill/SKILL.md"])
		})
	}
}

func TestWriteRefusesLinksOutside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	writeSkill(t, dir)
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "passwd")))
	_, err := pack.Write(context.Background(), io.Discard, dir, pack.Options{})
	assert.ErrorContains(t, err, "passwd: symlink points outside the skill folder")
}

func TestWriteFollowsLinksInside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	writeSkill(t, dir)
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "b.txt")))
	files, err := pack.List(dir, nil)
	require.NoError(t, err)
	var found bool
	for _, f := range files {
		if f.Path == "b.txt" {
			found = true
			assert.Equal(t, int64(2), f.Size)
		}
	}
	assert.True(t, found)
}

func TestWriteExcludesOutput(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir)
	out := filepath.Join(dir, "demo.skill")
	require.NoError(t, os.WriteFile(out, []byte("old"), 0o644))
	files, err := pack.List(dir, []string{out})
	require.NoError(t, err)
	for _, f := range files {
		assert.NotEqual(t, "demo.skill", f.Path)
	}
}

func TestFormatForFile(t *testing.T) {
	for in, want := range map[string]pack.Format{"a.skill": pack.FormatZip, "a.ZIP": pack.FormatZip, "a.tar.gz": pack.FormatTarGz, "a.tgz": pack.FormatTarGz} {
		got, err := pack.FormatForFile(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := pack.FormatForFile("a.rar")
	assert.ErrorContains(t, err, "a.rar: unknown archive type")
}
