package pack

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/skillctl/skillctl/internal/atomicfs"
	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/skilltree"
	"github.com/skillctl/skillctl/pkg/validate"
)

// Packer validates a skill folder and writes its archive (the pack command).
type Packer struct {
	// Cwd resolves relative paths.
	Cwd string
	// Output is the archive's path: "" means <name>.skill in Cwd, "-" means Stdout.
	Output string
	// Stdout receives the archive when Output is "-".
	Stdout io.Writer
}

// Result is what Run did (pack --json).
type Result struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Files  int    `json:"files"`
	// Findings are the validation findings of the skill.
	Findings []findings.Finding `json:"-"`
}

// ErrInvalid: the skill has validation errors (in Result.Findings); nothing was written.
var ErrInvalid = errors.New("the skill has validation errors")

// Run packs the skill at dir (a skill folder or its SKILL.md). A dir that is
// not one skill is a *skilltree.NotOneSkillError listing the skills below it; a
// skill with validation errors returns ErrInvalid with the findings in the
// result. The archive is written atomically; on any failure, a cancelled
// ctx included, no file is left behind.
func (p *Packer) Run(ctx context.Context, dir string) (*Result, error) {
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(p.Cwd, abs)
	}
	skillDir, err := skilltree.One(ctx, abs, dir)
	if err != nil {
		return nil, err
	}
	res := validate.Dir(skillDir, validate.Options{Profile: validate.ProfileDefault})
	out := &Result{Findings: res.Findings}
	if res.HasErrors() {
		return out, ErrInvalid
	}
	name := SkillName(skillDir)
	path := p.Output
	if path == "" {
		path = name + ".skill"
	}
	format := FormatZip
	if path != "-" {
		format, err = FormatForFile(path)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.Cwd, path)
		}
	}
	files, err := List(skillDir, []string{path})
	if err != nil {
		return nil, err
	}
	out.Name, out.Path, out.Format, out.Files = name, path, string(format), countFiles(files)
	opts := Options{Format: format, Name: name}
	if path == "-" {
		cw := &countingWriter{w: p.Stdout}
		out.SHA256, err = writeFiles(ctx, cw, skillDir, files, opts)
		out.Size = cw.n
		return out, err
	}
	// The folder is listed once, before the temporary file exists, so an
	// archive written inside the folder never packs itself.
	err = atomicfs.Write(path, 0o644, func(f *os.File) error {
		cw := &countingWriter{w: f}
		sum, err := writeFiles(ctx, cw, skillDir, files, opts)
		out.SHA256, out.Size = sum, cw.n
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return out, nil
}

func countFiles(files []File) int {
	n := 0
	for _, f := range files {
		if !f.Mode.IsDir() {
			n++
		}
	}
	return n
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
