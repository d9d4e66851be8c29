package ctxio

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReaderStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, strings.NewReader(strings.Repeat("x", 1<<20)))
	buf := make([]byte, 4096)
	_, err := r.Read(buf)
	require.NoError(t, err)
	cancel()
	n, err := io.Copy(io.Discard, r)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, n)
}
