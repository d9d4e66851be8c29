// Package pack writes a skill folder as a reproducible archive: one
// top-level folder named after the skill, entries sorted by path, fixed
// timestamps, modes 0644 and 0755, owner 0, and build clutter
// (`.git`, `__pycache__`, `node_modules`, `.DS_Store`, `*.pyc`) left out.
// The same folder gives the same bytes every time.
package pack

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillctl/skillctl/internal/ctxio"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Format is an output format.
type Format string

// Output formats.
const (
	FormatZip   Format = "zip"
	FormatTarGz Format = "tar.gz"
)

// ModTime is the timestamp of every entry (the earliest a zip can hold).
var ModTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Options tune Write.
type Options struct {
	// Format is zip (the default; also .skill) or tar.gz.
	Format Format
	// Name is the top-level folder; empty means the skill's name (from
	// SKILL.md, else the folder's name).
	Name string
	// Exclude lists absolute paths to leave out (the output file when it
	// is written inside the folder).
	Exclude []string
}

// FormatForFile picks the format from an output file's name: .skill and
// .zip give zip, .tar.gz and .tgz give tar.gz.
func FormatForFile(name string) (Format, error) {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".skill"), strings.HasSuffix(lower, ".zip"):
		return FormatZip, nil
	case strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		return FormatTarGz, nil
	}
	return "", fmt.Errorf("%s: unknown archive type; name it .skill, .zip, .tar.gz or .tgz", name)
}

// File is one entry of a packed archive.
type File struct {
	// Path is slash-separated, relative to the skill folder; folders end in "/".
	Path string
	Mode fs.FileMode
	Size int64
	abs  string
}

// List returns what Write would pack from dir, sorted by path. Symlinks to
// files inside the folder are packed as the files they point to; links
// leaving the folder, links to folders and special files are errors.
func List(dir string, exclude []string) ([]File, error) {
	skip := map[string]bool{}
	for _, e := range exclude {
		if abs, err := filepath.Abs(e); err == nil {
			skip[abs] = true
		}
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	realDir, err := filepath.EvalSymlinks(absDir)
	if err != nil {
		return nil, err
	}
	var files []File
	err = filepath.WalkDir(absDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == absDir {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, absDir+string(filepath.Separator)))
		if skill.Clutter(d.Name(), d.IsDir()) || skip[p] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			files = append(files, File{Path: rel + "/", Mode: 0o755 | fs.ModeDir})
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			_, inside, err := skill.LinkTarget(realDir, p)
			if err != nil {
				return fmt.Errorf("%s: broken symlink: %w", rel, err)
			}
			if !inside {
				return fmt.Errorf("%s: symlink points outside the skill folder; replace it with the file itself", rel)
			}
			if info, err = os.Stat(p); err != nil {
				return err
			}
			if !info.Mode().IsRegular() {
				return fmt.Errorf("%s: symlink to a folder; archives hold only files and folders", rel)
			}
		} else if !info.Mode().IsRegular() {
			return fmt.Errorf("%s: %v is not a regular file; remove it from the skill folder", rel, info.Mode().Type())
		}
		mode := fs.FileMode(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		files = append(files, File{Path: rel, Mode: mode, Size: info.Size(), abs: p})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// SkillName is the name a skill folder is packed under: name from SKILL.md,
// else the folder's name.
func SkillName(dir string) string {
	if s, err := skill.Load(dir, skill.LoadOptions{}); err == nil && s.Name != "" {
		return s.Name
	}
	abs, _ := filepath.Abs(dir)
	return filepath.Base(abs)
}

// Write packs the skill folder dir into w and returns the archive's sha256
// (hex). It does not validate the skill; callers do that first.
func Write(ctx context.Context, w io.Writer, dir string, opts Options) (string, error) {
	files, err := List(dir, opts.Exclude)
	if err != nil {
		return "", fmt.Errorf("pack %s: %w", dir, err)
	}
	return writeFiles(ctx, w, dir, files, opts)
}

// writeFiles packs files (as List gave them for dir) into w.
func writeFiles(ctx context.Context, w io.Writer, dir string, files []File, opts Options) (string, error) {
	name := opts.Name
	if name == "" {
		name = SkillName(dir)
	}
	if n, err := skill.CheckRelPath(name); err != nil || strings.Contains(n, "/") || n == "." {
		return "", fmt.Errorf("%q cannot name the archive's top folder", name)
	}
	h := sha256.New()
	out := io.MultiWriter(w, h)
	var err error
	switch opts.Format {
	case "", FormatZip:
		err = writeZip(ctx, out, name, files)
	case FormatTarGz:
		err = writeTarGz(ctx, out, name, files)
	default:
		return "", fmt.Errorf("unknown pack format %q (zip or tar.gz)", opts.Format)
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("pack %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func copyFile(ctx context.Context, w io.Writer, f File) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	in, err := os.Open(f.abs)
	if err != nil {
		return err
	}
	defer in.Close()
	n, err := io.Copy(w, ctxio.Reader(ctx, in))
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	if n != f.Size {
		return fmt.Errorf("%s: changed while packing", f.Path)
	}
	return nil
}

func writeZip(ctx context.Context, w io.Writer, top string, files []File) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.DefaultCompression)
	})
	all := append([]File{{Path: "", Mode: 0o755 | fs.ModeDir}}, files...)
	for _, f := range all {
		hdr := &zip.FileHeader{Name: top + "/" + f.Path, Method: zip.Deflate, Modified: ModTime}
		hdr.SetMode(f.Mode)
		if f.Mode.IsDir() {
			hdr.Method = zip.Store
		}
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if !f.Mode.IsDir() {
			if err := copyFile(ctx, fw, f); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

func writeTarGz(ctx context.Context, w io.Writer, top string, files []File) error {
	gw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gw)
	all := append([]File{{Path: "", Mode: 0o755 | fs.ModeDir}}, files...)
	for _, f := range all {
		hdr := &tar.Header{Name: top + "/" + f.Path, Mode: int64(f.Mode.Perm()), ModTime: ModTime, Typeflag: tar.TypeReg, Size: f.Size}
		if f.Mode.IsDir() {
			hdr.Typeflag, hdr.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !f.Mode.IsDir() {
			if err := copyFile(ctx, tw, f); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gw.Close()
}
