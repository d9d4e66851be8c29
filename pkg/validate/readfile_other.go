//go:build !unix

package validate

import (
	"io"
	"io/fs"
	"os"

	"github.com/skillctl/skillctl/pkg/skill"
)

// readSkillFile reads the file at path, up to skill.MaxSkillMDSize+1 bytes.
func readSkillFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errNotRegular}
	}
	return io.ReadAll(io.LimitReader(f, skill.MaxSkillMDSize+1))
}
