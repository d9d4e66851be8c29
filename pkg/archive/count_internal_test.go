package archive

import (
	"bytes"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type memFile struct{ *bytes.Reader }

func (memFile) Stat() (fs.FileInfo, error) { return nil, fs.ErrInvalid }
func (memFile) Close() error               { return nil }

// An entry whose content runs past its declared size is stopped by the
// byte counters, not by trusting the header.
func TestBytesAreCountedAsRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits Limits
		want   string
	}{
		{"per entry", Limits{MaxEntryBytes: 1000, MaxTotalBytes: -1}, "per-entry limit"},
		{"total", Limits{MaxEntryBytes: -1, MaxTotalBytes: 1500}, "total limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &walker{limits: tc.limits}
			body := make([]byte, 4000)
			w.readBytes = 600
			e := &Entry{Name: "a/lying.bin", RawName: "a/lying.bin", Type: TypeFile, Size: 10, ModTime: time.Time{}, w: w,
				open: func() (fs.File, error) { return memFile{bytes.NewReader(body)}, nil }}
			rc, err := e.Open()
			require.NoError(t, err)
			_, err = io.Copy(io.Discard, rc)
			assert.ErrorIs(t, err, ErrLimit)
			assert.ErrorContains(t, err, tc.want)
			assert.ErrorContains(t, err, `"a/lying.bin"`)
		})
	}
}
