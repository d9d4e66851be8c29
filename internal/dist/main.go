// Command dist builds skillctl's release archives: for each of
// linux, darwin and windows on amd64 and arm64, a static binary packed with
// README.md, the man pages and the completion scripts, as
// skillctl_VERSION_OS_ARCH.tar.gz (.zip for windows), and a SHA256SUMS file
// listing them. `make dist` runs it.
//
// The archives are reproducible: the same commit and Go toolchain give the
// same bytes. Binaries are built with -trimpath, an empty build id and no
// VCS stamp; archive entries are sorted, owned by 0:0, with modes 0755/0644
// and every timestamp set to SOURCE_DATE_EPOCH (default: the time of the
// last commit).
//
//	go run ./internal/dist [-out DIR] [-version V] [-targets os/arch,...]
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Targets are the platforms release archives are built for.
var Targets = []string{
	"darwin/amd64", "darwin/arm64",
	"linux/amd64", "linux/arm64",
	"windows/amd64", "windows/arm64",
}

// File is one entry of a release archive.
type File struct {
	// Name is the slash-separated path inside the archive's top folder.
	Name string
	Data []byte
	Exec bool
}

func main() {
	out := flag.String("out", "dist", "the folder the archives are written to")
	version := flag.String("version", "", "the version to stamp (default: git describe --tags --always --dirty)")
	targets := flag.String("targets", strings.Join(Targets, ","), "the os/arch pairs to build, comma-separated")
	flag.Parse()
	if err := run(*out, *version, strings.Split(*targets, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(out, version string, targets []string) error {
	if version == "" {
		v, err := git("describe", "--tags", "--always", "--dirty")
		if err != nil {
			return fmt.Errorf("the version: %w (give -version)", err)
		}
		version = v
	}
	mtime, err := sourceDate()
	if err != nil {
		return err
	}
	extra, err := extraFiles()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var sums []string
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok {
			return fmt.Errorf("target %q: write os/arch, e.g. linux/amd64", t)
		}
		bin, err := build(goos, goarch, version)
		if err != nil {
			return err
		}
		exe := "skillctl"
		if goos == "windows" {
			exe += ".exe"
		}
		files := append([]File{{Name: exe, Data: bin, Exec: true}}, extra...)
		base := fmt.Sprintf("skillctl_%s_%s_%s", strings.TrimPrefix(version, "v"), goos, goarch)
		var buf bytes.Buffer
		name := base + ".tar.gz"
		if goos == "windows" {
			name = base + ".zip"
			err = WriteZip(&buf, base, files, mtime)
		} else {
			err = WriteTarGz(&buf, base, files, mtime)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(buf.Bytes())
		sums = append(sums, hex.EncodeToString(sum[:])+"  "+name)
		fmt.Println(filepath.Join(out, name))
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i][66:] < sums[j][66:] })
	if err := os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(sums, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	fmt.Println(filepath.Join(out, "SHA256SUMS"))
	return nil
}

func git(args ...string) (string, error) {
	b, err := exec.Command("git", args...).Output()
	return strings.TrimSpace(string(b)), err
}

// sourceDate is the time every archive entry carries: SOURCE_DATE_EPOCH,
// else the last commit's time.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		v, err := git("log", "-1", "--format=%ct")
		if err != nil {
			return time.Time{}, fmt.Errorf("the commit time: %w (set SOURCE_DATE_EPOCH)", err)
		}
		s = v
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

// build compiles skillctl for one platform, reproducibly.
func build(goos, goarch, version string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "skillctl-dist-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "skillctl")
	ldflags := "-s -w -buildid= -X github.com/skillctl/skillctl/cmd.version=" + version
	c := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, ".")
	c.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("go build for %s/%s: %w", goos, goarch, err)
	}
	return os.ReadFile(bin)
}

// extraFiles are what every archive holds beside the binary: README.md,
// the man pages and the completion scripts.
func extraFiles() ([]File, error) {
	var out []File
	add := func(src, name string) error {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		out = append(out, File{Name: name, Data: b})
		return nil
	}
	if err := add("README.md", "README.md"); err != nil {
		return nil, err
	}
	for _, dir := range []struct{ src, dst string }{{"docs/man", "man/man1"}, {"completions", "completions"}} {
		ents, err := os.ReadDir(dir.src)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.Type().IsRegular() {
				if err := add(filepath.Join(dir.src, e.Name()), path.Join(dir.dst, e.Name())); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// sorted returns files sorted by name, and the folders that hold them.
func sorted(files []File) ([]File, []string) {
	out := append([]File(nil), files...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	seen := map[string]bool{}
	var dirs []string
	for _, f := range out {
		for d := path.Dir(f.Name); d != "."; d = path.Dir(d) {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	sort.Strings(dirs)
	return out, dirs
}

func mode(f File) fs.FileMode {
	if f.Exec {
		return 0o755
	}
	return 0o644
}

// WriteTarGz writes files under the folder top as a gzip-compressed tar
// with fixed owners, modes and times: the same files give the same bytes.
func WriteTarGz(w io.Writer, top string, files []File, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	gz.ModTime = time.Unix(0, 0) // no time in the gzip header
	tw := tar.NewWriter(gz)
	sortedFiles, dirs := sorted(files)
	hdr := func(name string, m fs.FileMode, size int64, typ byte) *tar.Header {
		return &tar.Header{Name: name, Mode: int64(m), Size: size, Typeflag: typ, ModTime: mtime,
			Uname: "root", Gname: "root", Format: tar.FormatPAX}
	}
	if err := tw.WriteHeader(hdr(top+"/", 0o755, 0, tar.TypeDir)); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := tw.WriteHeader(hdr(top+"/"+d+"/", 0o755, 0, tar.TypeDir)); err != nil {
			return err
		}
	}
	for _, f := range sortedFiles {
		if err := tw.WriteHeader(hdr(top+"/"+f.Name, mode(f), int64(len(f.Data)), tar.TypeReg)); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// WriteZip writes files under the folder top as a zip with fixed modes and
// times: the same files give the same bytes.
func WriteZip(w io.Writer, top string, files []File, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	sortedFiles, dirs := sorted(files)
	add := func(name string, m fs.FileMode, data []byte) error {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mtime}
		if strings.HasSuffix(name, "/") {
			h.Method = zip.Store
			m |= fs.ModeDir
		}
		h.SetMode(m)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = fw.Write(data)
		return err
	}
	if err := add(top+"/", 0o755, nil); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := add(top+"/"+d+"/", 0o755, nil); err != nil {
			return err
		}
	}
	for _, f := range sortedFiles {
		if err := add(top+"/"+f.Name, mode(f), f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}
