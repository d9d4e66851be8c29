//go:build unix

package index

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack 12: --write on a FIFO hung forever. A FIFO, a device and a
// socket are refused at once.
func TestWriteBlockRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "AGENTS.md")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	done := make(chan error, 1)
	go func() { _, err := WriteBlock(fifo, []byte("x\n")); done <- err }()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not a regular file (a FIFO)")
	case <-time.After(30 * time.Second):
		t.Fatal("--write blocked on a FIFO")
	}
	_, err := WriteBlock("/dev/null", []byte("x\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a device")
}

// Attack 12: --write replaced a file of another user with one of its own.
// The owner is kept (run as root), or the write is refused.
func TestWriteBlockKeepsOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "AGENTS.md")
	require.NoError(t, os.WriteFile(file, []byte("top\n"), 0o664))
	require.NoError(t, os.Chown(file, 65534, 65534))
	_, err := WriteBlock(file, []byte("x\n"))
	require.NoError(t, err)
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(file, &st))
	assert.Equal(t, uint32(65534), st.Uid)
	assert.Equal(t, uint32(65534), st.Gid)
}
