package atomicfs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFileKeepsModeAndLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
	require.NoError(t, WriteFile(p, []byte("new"), KeepMode))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	boom := errors.New("boom")
	err = Write(p, 0o644, func(f *os.File) error {
		_, _ = f.WriteString("half")
		return boom
	})
	require.ErrorIs(t, err, boom)
	got, _ = os.ReadFile(p)
	assert.Equal(t, "new", string(got), "a failed write leaves the file as it was")
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 1, "and no temporary file")
}

func TestReplaceDir(t *testing.T) {
	for _, exchange := range []bool{true, false} {
		t.Run(map[bool]string{true: "exchange", false: "two renames"}[exchange], func(t *testing.T) {
			if !exchange {
				old := Exchange
				Exchange = func(a, b string) error { return ErrNoExchange }
				t.Cleanup(func() { Exchange = old })
			}
			dir := t.TempDir()
			target := filepath.Join(dir, "site")
			stage := filepath.Join(dir, ".site.tmp")
			require.NoError(t, os.MkdirAll(target, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(target, "old"), nil, 0o644))
			require.NoError(t, os.MkdirAll(stage, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(stage, "new"), nil, 0o644))
			require.NoError(t, ReplaceDir(stage, target))
			assert.FileExists(t, filepath.Join(target, "new"))
			assert.NoFileExists(t, filepath.Join(target, "old"))
			ents, _ := os.ReadDir(dir)
			assert.Len(t, ents, 1, "the old folder is gone")

			// a folder that does not exist yet is simply renamed into place
			fresh := filepath.Join(dir, "fresh")
			require.NoError(t, os.MkdirAll(stage, 0o755))
			require.NoError(t, ReplaceDir(stage, fresh))
			assert.DirExists(t, fresh)
			assert.NoDirExists(t, stage)
		})
	}
}
