package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/skill"
)

func names(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Skill.Name)
	}
	return out
}

func TestCollectTree(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, "a"), "a", "A.")
	writeSkill(t, filepath.Join(root, "group", "b"), "b", "B.")
	writeSkill(t, filepath.Join(root, ".hidden", "c"), "c", "C.")
	// Not skills: inside .git and node_modules, and below a skill folder.
	writeSkill(t, filepath.Join(root, ".git", "x"), "x", "X.")
	writeSkill(t, filepath.Join(root, "node_modules", "y"), "y", "Y.")
	writeSkill(t, filepath.Join(root, "a", "assets", "template"), "template", "A template, not a skill.")
	// A broken skill is reported, not dropped silently.
	require.NoError(t, os.MkdirAll(filepath.Join(root, "broken"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "broken", "SKILL.md"), []byte("no frontmatter\n"), 0o644))

	got, err := Collect(context.Background(), []string{root}, "", true)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a", "b", "c"}, names(got.Items))
	require.Len(t, got.Problems, 1)
	assert.Equal(t, filepath.Join(root, "broken"), got.Problems[0].Path)
	assert.Contains(t, got.Problems[0].Reason, "frontmatter")
	for _, it := range got.Items {
		assert.Equal(t, skill.SourcePath, it.Skill.Source)
		assert.Empty(t, it.Skill.Body, "bodies are dropped when not needed")
	}
}

func TestCollectPathsAndDuplicates(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, "one", "dup"), "dup", "First.")
	writeSkill(t, filepath.Join(root, "two", "dup"), "dup", "Second.")
	writeSkill(t, filepath.Join(root, "solo"), "solo", "Solo.")

	got, err := Collect(context.Background(),
		[]string{"one/dup", filepath.Join(root, "two", "dup"), "solo/SKILL.md", "solo"}, root, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"dup", "solo"}, names(got.Items))
	assert.Equal(t, "Second.", got.Items[0].Skill.Description, "the later path wins")
	assert.Equal(t, []Duplicate{{Name: "dup", Kept: filepath.Join(root, "two", "dup"), Lost: filepath.Join(root, "one", "dup")}}, got.Duplicates)
	assert.Contains(t, got.Items[1].Skill.Body, "Body of solo.")
}

func TestCollectErrors(t *testing.T) {
	root := t.TempDir()
	_, err := Collect(context.Background(), []string{"nope"}, root, true)
	assert.True(t, errors.Is(err, skill.ErrNotFound), "%v", err)

	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x"), 0o644))
	_, err = Collect(context.Background(), []string{"notes.txt"}, root, true)
	assert.ErrorContains(t, err, "neither a skill folder")

	require.NoError(t, os.MkdirAll(filepath.Join(root, "bad"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "bad", "SKILL.md"), []byte("---\nname: [x\n---\n"), 0o644))
	_, err = Collect(context.Background(), []string{"bad"}, root, true)
	assert.ErrorContains(t, err, "cannot be loaded", "a skill named directly must load")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	writeSkill(t, filepath.Join(root, "tree", "s"), "s", "S.")
	_, err = Collect(ctx, []string{"tree"}, root, true)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestCollectFollowsLinksOnce(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, "store", "s"), "s", "S.")
	tree := filepath.Join(root, "tree")
	require.NoError(t, os.MkdirAll(tree, 0o755))
	if err := os.Symlink(filepath.Join(root, "store", "s"), filepath.Join(tree, "s")); err != nil {
		t.Skipf("symbolic links are not available here: %v", err)
	}
	require.NoError(t, os.Symlink(tree, filepath.Join(tree, "loop")))
	got, err := Collect(context.Background(), []string{tree, filepath.Join(root, "store")}, "", true)
	require.NoError(t, err)
	assert.Equal(t, []string{"s"}, names(got.Items), "the same real folder is loaded once; loops end")
	assert.Empty(t, got.Duplicates)
}
