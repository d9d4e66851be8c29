package install_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
)

// Attack 11 on a real file system: a small tmpfs is filled so that an
// update runs out of space at every point it can (staging, the swap, the
// lock), one page more free space each time. Each attempt either installs
// the new version with its lock, or fails leaving the old version, the old
// lock and no staging folder; and once there is room again the update
// installs.
func TestFullDiskOnARealFileSystem(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	base := t.TempDir()
	mnt := filepath.Join(base, "small")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	root := filepath.Join(mnt, "skills")
	oldZip := at.Zip(goodSkill("demo", "old\n"))
	newZip := at.Zip(append(goodSkill("demo", "new\n"),
		at.Entry{Name: "demo/references/BIG.md", Body: strings.Repeat("new data\n", 20000)}))
	src := filepath.Join(base, "demo.zip")
	install1 := func(data []byte) (*install.Result, error) {
		require.NoError(t, os.WriteFile(src, data, 0o644))
		return run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	}
	res, err := install1(oldZip)
	require.NoError(t, err)
	oldTree := res.Skills[0].TreeSha256
	lockBefore, err := os.ReadFile(filepath.Join(root, install.LockFileName))
	require.NoError(t, err)

	filler := filepath.Join(mnt, "filler")
	fill := func(leave int64) {
		f, err := os.Create(filler)
		require.NoError(t, err)
		chunk := make([]byte, 64<<10)
		var n int64
		for {
			w, err := f.Write(chunk)
			n += int64(w)
			if err != nil {
				require.True(t, errors.Is(err, syscall.ENOSPC), "filling: %v", err)
				break
			}
		}
		require.NoError(t, f.Truncate(max(0, n-leave)))
		require.NoError(t, f.Close())
	}
	failures := 0
	for leave := int64(0); leave < 4<<20; leave += 4096 {
		fill(leave)
		_, err := install1(newZip)
		if err == nil {
			t.Logf("installed with %d bytes free, after %d attempts that ran out of space", leave, failures)
			break
		}
		failures++
		tree, terr := install.TreeSHA256(context.Background(), filepath.Join(root, "demo"))
		require.NoError(t, terr, "with %d bytes free: the skill folder is there", leave)
		require.Equal(t, oldTree, tree, "with %d bytes free: the old version, whole (%v)", leave, err)
		lock, _ := os.ReadFile(filepath.Join(root, install.LockFileName))
		require.Equal(t, string(lockBefore), string(lock), "with %d bytes free: the old lock", leave)
		require.Empty(t, stagingLeft(t, root), "with %d bytes free: nothing left behind", leave)
		require.NoError(t, os.Remove(filler))
	}
	require.Positive(t, failures, "the disk was full at least once")
	os.Remove(filler)
	_, err = install1(newZip)
	require.NoError(t, err)
	assert.NotEqual(t, oldTree, requireLockMatchesDisk(t, root).Entries()["demo"].TreeSha256)
}
