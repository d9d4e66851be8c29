//go:build !unix

package index

import (
	"io/fs"
	"os"
)

func openNoFollow(file string) (*os.File, error) { return os.Open(file) }

func canWrite(file string) bool { return true }

// keepOwner: Windows files have no Unix owner to keep.
func keepOwner(f *os.File, fi fs.FileInfo) error { return nil }
