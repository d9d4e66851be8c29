// Package ctxio makes long copies stop when their context is cancelled.
package ctxio

import (
	"context"
	"io"
)

// Reader returns r, failing with ctx.Err() once ctx is cancelled: an
// io.Copy through it stops within one read.
func Reader(ctx context.Context, r io.Reader) io.Reader { return reader{ctx, r} }

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (c reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
