package skill

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFilesAndInventory(t *testing.T) {
	base := t.TempDir()
	dir := writeSkill(t, base, "inv", "d")
	writeFile(t, filepath.Join(dir, "scripts", "run.sh"), "#!/bin/sh\n")
	writeFile(t, filepath.Join(dir, "references", "API.md"), "# api\n")
	writeFile(t, filepath.Join(dir, "references", "data.json"), "{}")
	writeFile(t, filepath.Join(dir, "assets", "logo.svg"), "<svg/>")
	writeFile(t, filepath.Join(dir, "report.tmpl"), "x")
	writeFile(t, filepath.Join(dir, "tool"), "bin")
	require.NoError(t, os.Chmod(filepath.Join(dir, "tool"), 0o755))
	writeFile(t, filepath.Join(dir, "node_modules", "x", "index.js"), "skipped")
	writeFile(t, filepath.Join(base, "secret.txt"), "outside")
	require.NoError(t, os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "leak.txt")))
	require.NoError(t, os.Symlink("references/API.md", filepath.Join(dir, "api-link.md")))

	files, err := Files(dir)
	require.NoError(t, err)
	got := map[string]string{}
	for _, f := range files {
		got[f.Path] = f.Type
	}
	assert.Equal(t, map[string]string{
		"SKILL.md": TypeMarkdown, "api-link.md": TypeMarkdown, "assets/logo.svg": TypeTemplate,
		"references/API.md": TypeMarkdown, "references/data.json": TypeOther, "report.tmpl": TypeTemplate,
		"scripts/run.sh": TypeScript, "tool": TypeScript,
	}, got, "links leaving the folder and node_modules are left out")

	inv := Inventory(files)
	assert.Equal(t, FileInventory{HasSkillMd: true, HasScripts: true, HasReferences: true, ScriptFiles: 2,
		ReferenceFiles: 2, TemplateFiles: 2, TotalFiles: 8, TotalSizeBytes: inv.TotalSizeBytes}, inv)
	assert.Positive(t, inv.TotalSizeBytes)
}

func TestOpenFileRefusesEscapes(t *testing.T) {
	base := t.TempDir()
	dir := writeSkill(t, base, "safe", "d")
	writeFile(t, filepath.Join(base, "secret.txt"), "outside")
	writeFile(t, filepath.Join(dir, "references", "ok.md"), "inside")
	require.NoError(t, os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "leak.txt")))
	require.NoError(t, os.Symlink(base, filepath.Join(dir, "up")))

	data, err := ReadFile(dir, "references/ok.md")
	require.NoError(t, err)
	assert.Equal(t, "inside", string(data))
	data, err = ReadFile(dir, `references\ok.md`)
	require.NoError(t, err, "backslashes are folder separators")
	assert.Equal(t, "inside", string(data))

	for _, rel := range []string{"../secret.txt", "../../etc/passwd", "/etc/passwd", `..\secret.txt`, "C:/x", "leak.txt", "up/secret.txt", "references/../../secret.txt"} {
		_, err := ReadFile(dir, rel)
		assert.ErrorIs(t, err, ErrDenied, rel)
	}
	_, err = ReadFile(dir, "nope.md")
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = ReadFile(dir, "references")
	assert.Error(t, err)
}

func TestLoadLowercaseAndMissing(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "low", "skill.md"), "---\nname: low\ndescription: d\n---\n")
	s, err := Load(filepath.Join(base, "low"), LoadOptions{})
	require.NoError(t, err)
	assert.True(t, s.LowercaseFile)
	require.Len(t, s.Diagnostics, 1)
	assert.Equal(t, "skill-md-lowercase", s.Diagnostics[0].Rule)

	_, err = Load(filepath.Join(base, "nothing"), LoadOptions{})
	assert.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, os.MkdirAll(filepath.Join(base, "empty"), 0o755))
	_, err = Load(filepath.Join(base, "empty"), LoadOptions{})
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "no SKILL.md")
}

func TestLoadLargeFileStillReadWhole(t *testing.T) {
	base := t.TempDir()
	body := make([]byte, 100<<10)
	for i := range body {
		body[i] = 'a' + byte(i%26)
		if i%80 == 79 {
			body[i] = '\n'
		}
	}
	writeFile(t, filepath.Join(base, "big", "SKILL.md"), "---\nname: big\ndescription: d\n---\n"+string(body))
	for _, drop := range []bool{false, true} {
		s, err := Load(filepath.Join(base, "big"), LoadOptions{DropBody: drop})
		require.NoError(t, err)
		assert.Equal(t, int64(len(body)+33), s.Size)
		if !drop {
			assert.Equal(t, string(body), s.Body)
		}
	}
}
