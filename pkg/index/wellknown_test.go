package index

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/skill"
)

// siteItems is the fixture skills plus one with scripts and references.
func siteItems(t *testing.T) []Item {
	t.Helper()
	items, _, _ := fixtureItems(t)
	dir := filepath.Join(t.TempDir(), "with-files")
	writeSkill(t, dir, "with-files", "Has a script & a reference.")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "references"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "references", "NOTES.md"), []byte("# Notes\n"), 0o644))
	got, err := Collect(context.Background(), []string{dir}, "", true)
	require.NoError(t, err)
	all, _ := Select(append(items, got.Items...), nil)
	return all
}

// readSite reads every file under dir: slash path -> content.
func readSite(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	}))
	return out
}

func TestWellKnownDigestsMatchArtifacts(t *testing.T) {
	root := t.TempDir()
	items := siteItems(t)
	idx, err := WriteWellKnown(context.Background(), root, items)
	require.NoError(t, err)

	data, err := os.ReadFile(filepath.Join(root, ".well-known", "agent-skills", "index.json"))
	require.NoError(t, err)
	var doc struct {
		Schema string           `json:"$schema"`
		Skills []map[string]any `json:"skills"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, WellKnownSchema, doc.Schema)
	require.Len(t, doc.Skills, len(items))
	assert.Len(t, idx.Skills, len(items))

	types := map[string]string{}
	for i, s := range doc.Skills {
		name := s["name"].(string)
		assert.Equal(t, items[i].Skill.Name, name, "sorted as given")
		for _, k := range []string{"name", "type", "description", "url", "digest"} {
			assert.NotEmpty(t, s[k], "%s: %s", name, k)
		}
		types[name] = s["type"].(string)
		u := s["url"].(string)
		require.True(t, strings.HasPrefix(u, "/.well-known/agent-skills/"), u)
		artifact, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(u, "/"))))
		require.NoError(t, err, "%s: the url names a file of the site", name)
		sum := sha256.Sum256(artifact)
		assert.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), s["digest"], "%s: the digest is the artifact's sha256", name)
	}
	assert.Equal(t, TypeArchive, types["with-files"])
	assert.Equal(t, TypeSkillMD, types["escapes"])
	assert.Equal(t, "Leading and trailing spaces go.", doc.Skills[3]["description"])

	// The archive holds the skill in one folder named after it.
	zr, err := zip.OpenReader(filepath.Join(root, ".well-known", "agent-skills", "with-files.zip"))
	require.NoError(t, err)
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	assert.Contains(t, names, "with-files/SKILL.md")
	assert.Contains(t, names, "with-files/scripts/run.sh")
	assert.Contains(t, names, "with-files/references/NOTES.md")
}

func TestWellKnownIsReproducibleAndReplacesTheOldSite(t *testing.T) {
	root := t.TempDir()
	items := siteItems(t)
	_, err := WriteWellKnown(context.Background(), root, items)
	require.NoError(t, err)
	site := filepath.Join(root, ".well-known", "agent-skills")
	first := readSite(t, site)

	stale := filepath.Join(site, "gone.zip")
	require.NoError(t, os.WriteFile(stale, []byte("old"), 0o644))
	_, err = WriteWellKnown(context.Background(), root, items)
	require.NoError(t, err)
	assert.Equal(t, first, readSite(t, site), "the same skills give the same bytes")
	_, err = os.Stat(stale)
	assert.True(t, os.IsNotExist(err), "files of skills no longer indexed are gone")
	assertNoTempFiles(t, filepath.Join(root, ".well-known"))
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(filepath.Join(site, "index.json"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	}
}

func TestWellKnownFailureKeepsTheOldSite(t *testing.T) {
	root := t.TempDir()
	items := siteItems(t)
	_, err := WriteWellKnown(context.Background(), root, items)
	require.NoError(t, err)
	site := filepath.Join(root, ".well-known", "agent-skills")
	before := readSite(t, site)

	bad := Item{Skill: &skill.Skill{Name: "Bad Name", ID: "user:Bad Name", Dir: t.TempDir()}}
	_, err = WriteWellKnown(context.Background(), root, append(items, bad))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `user:Bad Name`)
	assert.Contains(t, err.Error(), "cannot be published")
	assert.Equal(t, before, readSite(t, site))

	// A skill that pack refuses (a link leaving the folder) fails after
	// staging began; the old site stays.
	out := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(out, []byte("x"), 0o644))
	leaky := filepath.Join(t.TempDir(), "leaky")
	writeSkill(t, leaky, "leaky", "Links out.")
	if err := os.Symlink(out, filepath.Join(leaky, "link.txt")); err != nil {
		t.Skipf("symbolic links are not available here: %v", err)
	}
	got, err := Collect(context.Background(), []string{leaky}, "", true)
	require.NoError(t, err)
	_, err = WriteWellKnown(context.Background(), root, append(items, got.Items...))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "publish path:leaky")
	assert.Equal(t, before, readSite(t, site))
	assertNoTempFiles(t, filepath.Join(root, ".well-known"))

	dup := []Item{items[0], {Skill: &skill.Skill{Name: items[0].Skill.Name, ID: "plug:" + items[0].Skill.Name}}}
	_, err = WriteWellKnown(context.Background(), root, dup)
	assert.ErrorContains(t, err, "two skills are named alpha-by-name")
}

func TestWellKnownEmpty(t *testing.T) {
	root := t.TempDir()
	idx, err := WriteWellKnown(context.Background(), root, nil)
	require.NoError(t, err)
	assert.Empty(t, idx.Skills)
	data, err := os.ReadFile(filepath.Join(root, ".well-known", "agent-skills", "index.json"))
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"$schema\": \""+WellKnownSchema+"\",\n  \"skills\": []\n}\n", string(data))
}
