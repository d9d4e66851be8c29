package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sample = []File{
	{Name: "skillctl", Data: []byte("binary"), Exec: true},
	{Name: "README.md", Data: []byte("# skillctl\n")},
	{Name: "man/man1/skillctl.1", Data: []byte(".TH SKILLCTL 1\n")},
	{Name: "completions/_skillctl", Data: []byte("#compdef skillctl\n")},
}

var when = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// The same files give the same bytes, whatever their order; every entry
// is under the top folder, sorted, with fixed modes, owners and times.
func TestTarGzIsReproducible(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, WriteTarGz(&a, "skillctl_1.0_linux_amd64", sample, when))
	rev := []File{sample[3], sample[2], sample[1], sample[0]}
	require.NoError(t, WriteTarGz(&b, "skillctl_1.0_linux_amd64", rev, when))
	assert.Equal(t, a.Bytes(), b.Bytes())

	gz, err := gzip.NewReader(&a)
	require.NoError(t, err)
	assert.True(t, gz.ModTime.Equal(time.Unix(0, 0)) || gz.ModTime.IsZero())
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		names = append(names, h.Name)
		assert.True(t, h.ModTime.Equal(when), h.Name)
		assert.Equal(t, 0, h.Uid)
		if h.Name == "skillctl_1.0_linux_amd64/skillctl" {
			assert.EqualValues(t, 0o755, h.Mode)
		} else if h.Typeflag == tar.TypeReg {
			assert.EqualValues(t, 0o644, h.Mode, h.Name)
		}
	}
	assert.Equal(t, []string{"skillctl_1.0_linux_amd64/", "skillctl_1.0_linux_amd64/completions/",
		"skillctl_1.0_linux_amd64/man/", "skillctl_1.0_linux_amd64/man/man1/",
		"skillctl_1.0_linux_amd64/README.md", "skillctl_1.0_linux_amd64/completions/_skillctl",
		"skillctl_1.0_linux_amd64/man/man1/skillctl.1", "skillctl_1.0_linux_amd64/skillctl"}, names)
}

func TestZipIsReproducible(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, WriteZip(&a, "skillctl_1.0_windows_amd64", sample, when))
	require.NoError(t, WriteZip(&b, "skillctl_1.0_windows_amd64", []File{sample[2], sample[0], sample[3], sample[1]}, when))
	assert.Equal(t, a.Bytes(), b.Bytes())
	zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	require.NoError(t, err)
	require.Len(t, zr.File, 8)
	for _, f := range zr.File {
		assert.True(t, f.Modified.Equal(when), f.Name)
	}
	last := zr.File[len(zr.File)-1]
	assert.Equal(t, "skillctl_1.0_windows_amd64/skillctl", last.Name)
	assert.EqualValues(t, 0o755, last.Mode().Perm())
	rc, err := last.Open()
	require.NoError(t, err)
	data, _ := io.ReadAll(rc)
	assert.Equal(t, "binary", string(data))
}
