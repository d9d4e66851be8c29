package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/pkg/pack"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/validate"
)

type packOptions struct {
	IO     *iostreams.IOStreams
	JSON   bool
	Quiet  bool
	Cwd    string
	Dir    string
	Output string
}

// packResult is pack's JSON output.
type packResult struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Files  int    `json:"files"`
}

func init() { register(func(f *Factory) *cobra.Command { return newPackCmd(f, nil) }) }

func newPackCmd(f *Factory, runF func(context.Context, *packOptions) error) *cobra.Command {
	opts := &packOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "pack <dir> [-o <file>]",
		Short: "Pack a skill folder into a reproducible archive",
		Long: `Validate the skill folder DIR (default profile), then write it as an archive:
a zip (.skill or .zip) or a gzip-compressed tarball (.tar.gz or .tgz), chosen
by the name of -o FILE (default: <name>.skill in the working folder; "-" writes
the archive to stdout).

The archive holds one top-level folder named after the skill, entries sorted
by path, every timestamp set to 1980-01-01, modes 0644 (0755 for executables),
no owners; .git, node_modules, __pycache__, .DS_Store and *.pyc are left out.
Packing the same folder twice gives the same bytes. The archive's sha256 is
printed on stdout as "<sha256>  <file>". See docs/pack.md.`,
		Annotations: exitStatus(`  0  packed
  1  the skill has validation errors (listed on stderr) or could not be written;
     no archive was written
  2  bad flags or arguments
  3  DIR does not exist`),
		Example: `  skillctl pack ./pdf
  skillctl pack ./pdf -o dist/pdf.tar.gz
  skillctl pack ./pdf -o - | sha256sum`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeDirs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			opts.JSON = f.Global.JSON
			opts.Quiet = f.Global.Quiet
			if opts.Output != "" && opts.Output != "-" {
				if _, err := pack.FormatForFile(opts.Output); err != nil {
					return &FlagError{Err: fmt.Errorf("-o %w", err)}
				}
			}
			cwd, err := f.Cwd()
			if err != nil {
				return err
			}
			opts.Cwd = cwd
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return packRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write the archive to `FILE` (.skill, .zip, .tar.gz, .tgz; - for stdout)")
	_ = cmd.MarkFlagFilename("output", "skill", "zip", "tar.gz", "tgz")
	return cmd
}

func packRun(ctx context.Context, opts *packOptions) error {
	dir := opts.Dir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(opts.Cwd, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: not a folder: %w", opts.Dir, skill.ErrNotFound)
	}
	res := validate.Dir(dir, validate.Options{Profile: validate.ProfileDefault})
	for _, f := range res.Findings {
		if f.Severity != skill.SeverityError && opts.Quiet {
			continue
		}
		loc := f.File
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d:%d", loc, f.Line, f.Column)
		}
		fmt.Fprintf(opts.IO.ErrOut, "%s: %s %s %s\n", loc, f.Severity, f.Rule, f.Message)
	}
	if res.HasErrors() {
		return fmt.Errorf("%s has validation errors (listed above); no archive was written", opts.Dir)
	}
	name := pack.SkillName(dir)
	out := opts.Output
	if out == "" {
		out = name + ".skill"
	}
	var format pack.Format = pack.FormatZip
	if out != "-" {
		format, _ = pack.FormatForFile(out)
		if !filepath.IsAbs(out) {
			out = filepath.Join(opts.Cwd, out)
		}
	}
	popts := pack.Options{Format: format, Name: name}
	files, err := pack.List(dir, []string{out})
	if err != nil {
		return err
	}
	result := packResult{Name: name, Path: out, Format: string(format), Files: countFiles(files)}
	if out == "-" {
		cw := &countingWriter{w: opts.IO.Out}
		sum, err := pack.Write(cw, dir, popts)
		if err != nil {
			return err
		}
		if !opts.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "%s  -\n", sum)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	popts.Exclude = []string{out, tmp.Name()}
	cw := &countingWriter{w: tmp}
	sum, err := pack.Write(cw, dir, popts)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	result.SHA256, result.Size = sum, cw.n
	if opts.JSON {
		return writeJSON(opts.IO.Out, result)
	}
	fmt.Fprintf(opts.IO.Out, "%s  %s\n", sum, displayPath(opts.Cwd, out))
	if opts.IO.IsStderrTTY() && !opts.Quiet {
		fmt.Fprintf(opts.IO.ErrOut, "Packed %s: %d files, %s.\n", name, result.Files, skill.HumanSize(cw.n))
	}
	return nil
}

func countFiles(files []pack.File) int {
	n := 0
	for _, f := range files {
		if !f.Mode.IsDir() {
			n++
		}
	}
	return n
}

// displayPath shows p relative to cwd when it is below it.
func displayPath(cwd, p string) string {
	if r, err := filepath.Rel(cwd, p); err == nil && filepath.IsLocal(r) {
		return r
	}
	return p
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
