package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/pack"
	"github.com/skillctl/skillctl/pkg/skill"
)

type packOptions struct {
	IO     *iostreams.IOStreams
	JSON   bool
	Quiet  bool
	Cwd    string
	Dir    string
	Output string
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
printed on stdout as "<sha256>  <file>".`,
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
	p := &pack.Packer{Cwd: opts.Cwd, Output: opts.Output, Stdout: opts.IO.Out}
	res, err := p.Run(ctx, opts.Dir)
	if res != nil {
		shown := res.Findings
		if opts.Quiet {
			shown = findings.Only(shown, findings.Error)
		}
		if werr := findings.WriteText(opts.IO.ErrOut, shown, findingStyle(opts.IO, false)); werr != nil {
			return werr
		}
	}
	if errors.Is(err, pack.ErrInvalid) {
		return fmt.Errorf("%s has validation errors (listed above); no archive was written", opts.Dir)
	}
	if err != nil {
		return err
	}
	if opts.Output == "-" {
		if !opts.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "%s  -\n", res.SHA256)
		}
		return nil
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, res)
	}
	fmt.Fprintf(opts.IO.Out, "%s  %s\n", res.SHA256, displayPath(opts.Cwd, res.Path))
	if opts.IO.IsStderrTTY() && !opts.Quiet {
		fmt.Fprintf(opts.IO.ErrOut, "Packed %s: %d files, %s.\n", safetext.Line(res.Name), res.Files, skill.HumanSize(res.Size))
	}
	return nil
}

// displayPath shows p relative to cwd when it is below it.
func displayPath(cwd, p string) string {
	if r, err := filepath.Rel(cwd, p); err == nil && filepath.IsLocal(r) {
		return r
	}
	return p
}
