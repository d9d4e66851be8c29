//go:build unix

package catalog

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/skill"
)

// A FIFO named SKILL.md must not hang discovery: it is reported as broken.
func TestDiscoverFIFOSkillFile(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "good", "d")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "fifo"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo", "SKILL.md"), 0o644))
	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: root, Source: skill.SourcePath}}, true)
	require.NoError(t, err)
	require.Len(t, cat.Skills(), 1)
	require.Len(t, cat.Problems(), 1)
	assert.Contains(t, cat.Problems()[0].Path, "fifo")
}
