package skill

import (
	"archive/zip"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// The fast frontmatter reader covers the shapes real skills use: on the
// corpus of real skills, fewer than 5 % of the files fall back to yaml.v3,
// and every file it reads gives the tree yaml.v3 gives.
func TestFastReaderOnRealSkills(t *testing.T) {
	dir := os.Getenv("SKILLCTL_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	var archives []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".zip") || strings.HasSuffix(p, ".skill")) {
			archives = append(archives, p)
		}
		return nil
	})
	if len(archives) == 0 {
		t.Skipf("no corpus of real skills at %s (set SKILLCTL_CORPUS)", dir)
	}
	total, fallback := 0, 0
	for _, a := range archives {
		zr, err := zip.OpenReader(a)
		require.NoError(t, err)
		for _, f := range zr.File {
			if path.Base(f.Name) != "SKILL.md" {
				continue
			}
			rc, err := f.Open()
			require.NoError(t, err)
			data, err := io.ReadAll(rc)
			rc.Close()
			require.NoError(t, err)
			doc, err := parse(data, f.Name, false)
			if err != nil {
				continue // not loadable at all: not the fast reader's business
			}
			total++
			fast, ok := fastFrontmatter(doc.Frontmatter)
			if !ok {
				fallback++
				t.Logf("falls back to yaml.v3: %s: %s", a, f.Name)
				continue
			}
			var full yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(doc.Frontmatter), &full), "%s: the fast reader accepted what yaml.v3 rejects", f.Name)
			assert.Empty(t, compareNodes(fast, full.Content[0]), "%s: %s", a, f.Name)
		}
		zr.Close()
	}
	t.Logf("%d of %d real SKILL.md files fall back to yaml.v3", fallback, total)
	assert.Less(t, float64(fallback), 0.05*float64(total), "the fast reader covers real frontmatter")
}
