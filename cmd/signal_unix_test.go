//go:build unix

package cmd

import (
	"bytes"
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first Ctrl-C cancels the operation; a second one ends the process at
// once, whatever the operation is doing.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	exited := make(chan int, 1)
	old := exitNow
	exitNow = func(code int) { exited <- code }
	t.Cleanup(func() { exitNow = old })

	var errOut bytes.Buffer
	ctx, stop := cancelOnSignal(context.Background(), &errOut)
	defer stop()
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGINT))
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first interrupt did not cancel the operation")
	}
	select {
	case code := <-exited:
		t.Fatalf("the first interrupt ended the process (%d)", code)
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case code := <-exited:
		assert.Equal(t, ExitInterrupted, code)
		assert.Contains(t, errOut.String(), "Interrupted again")
	case <-time.After(5 * time.Second):
		t.Fatal("the second interrupt did not end the process")
	}
}
