package install

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive"
	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/skill"
)

// What staging records while it writes gives the digest and inventory a
// read of the staged folder gives: recovery compares the two.
func TestTreeOfMatchesTheDisk(t *testing.T) {
	entries := []at.Entry{
		{Name: "b/", Kind: at.Dir},
		{Name: "b/one/SKILL.md", Body: "---\nname: one\ndescription: x\n---\n"},
		{Name: "b/one/scripts/run.sh", Body: "#!/bin/sh\n", Mode: 0o755},
		{Name: "b/one/references/deep/a.md", Body: "a"},
		{Name: "b/one/assets/empty/", Kind: at.Dir},
		{Name: "b/one/assets/t.tmpl", Body: ""},
		{Name: "b/two/SKILL.md", Body: "---\nname: two\ndescription: y\n---\n"},
		{Name: "b/two/x.bin", Zeros: 70000},
		{Name: "b/two/copy.bin", Kind: at.Hardlink, Link: "b/two/x.bin"},
	}
	for _, format := range []string{"zip", "tar"} {
		dir := t.TempDir()
		data := at.Zip(entries)
		if format == "tar" {
			data = at.Tar(entries)
		}
		file := filepath.Join(dir, "a."+format)
		require.NoError(t, os.WriteFile(file, data, 0o644))
		tree := filepath.Join(dir, "tree")
		require.NoError(t, os.Mkdir(tree, 0o755))
		st, err := stageArchive(context.Background(), file, tree, archive.Options{}, nil)
		require.NoError(t, err)
		for _, rel := range []string{"", "b", "b/one", "b/two"} {
			sum, inv, ok := st.treeOf(rel)
			require.True(t, ok)
			disk, err := TreeSHA256(context.Background(), filepath.Join(tree, filepath.FromSlash(rel)))
			require.NoError(t, err)
			assert.Equal(t, disk, sum, "%s %s", format, rel)
			files, err := skill.Files(filepath.Join(tree, filepath.FromSlash(rel)))
			require.NoError(t, err)
			assert.Equal(t, skill.Inventory(files), inv, "%s %s", format, rel)
		}
	}
	// A folder with a symbolic link is read from the disk.
	st := newStaged(t.TempDir())
	st.symlinks["s/link"] = linkInfo{}
	_, _, ok := st.treeOf("s")
	assert.False(t, ok)
}
