package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillctl/skillctl/internal/ctxio"
)

// TreeSHA256 is the digest of an installed skill folder: the sha256 of one
// line per entry, sorted by slash path —
//
//	d <path>/
//	f <0644|0755> <sha256 of content> <path>
//	l <target> <path>
//
// for folders, files and symlinks. Times and owners do not count. It stops
// with ctx.Err() when ctx is cancelled.
func TreeSHA256(ctx context.Context, dir string) (string, error) {
	type line struct{ path, text string }
	var lines []line
	buf := make([]byte, 256<<10)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch t := d.Type(); {
		case t.IsDir():
			lines = append(lines, line{rel, "d " + rel + "/\n"})
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			lines = append(lines, line{rel, "l " + filepath.ToSlash(target) + " " + rel + "\n"})
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			mode := "0644"
			if info.Mode()&0o111 != 0 {
				mode = "0755"
			}
			sum, err := fileSHA256(ctx, p, buf)
			if err != nil {
				return err
			}
			lines = append(lines, line{rel, "f " + mode + " " + sum + " " + rel + "\n"})
		default:
			return fmt.Errorf("%s: not a regular file, folder or symlink", p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].path < lines[j].path })
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l.text)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileSHA256(ctx context.Context, p string, buf []byte) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, ctxio.Reader(ctx, f), buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
