package cmd

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/render"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/install"
	"github.com/skillctl/skillctl/pkg/skill"
)

type installOptions struct {
	IO      *iostreams.IOStreams
	JSON    bool
	Quiet   bool
	Now     func() time.Time
	Cwd     string
	Targets install.TargetOptions

	Sources      []string
	Skills       []string
	Force        bool
	DryRun       bool
	SHA256       string
	MaxEntries   int
	MaxFileSize  string
	MaxTotalSize string
	MaxDownload  string
	Timeout      time.Duration
}

func init() { register(func(f *Factory) *cobra.Command { return newInstallCmd(f, nil) }) }

func newInstallCmd(f *Factory, runF func(context.Context, *installOptions) error) *cobra.Command {
	opts := &installOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "install <source>... [--scope {user|project}] [--dir <dir>] [--skill <name>]... [--force] [--dry-run] [--sha256 <hex>]",
		Short: "Install skills from archives, folders or URLs",
		Long: `Install the skills held by each SOURCE: an archive file (zip, .skill, tar,
tar.gz, tar.bz2, tar.xz or tar.zst, recognised by its content, not its name),
a folder, or an http(s):// URL of an archive.

A source may hold SKILL.md at its top, one folder holding SKILL.md, or several
skill folders; all are installed unless --skill picks some. Each skill goes
into <target>/<name>/, named after its frontmatter name. The target is --dir,
else the skills folder of --scope (user: ~/.claude/skills; project:
.claude/skills at the repository top) for each --agent (claude when none is
given; agents, codex and opencode have their own folders).

Everything is unpacked and validated (default profile) in a staging folder
beside the target before anything there changes; then each skill is swapped
into place and the lock file .skillctl-lock.json rewritten, under a file lock.
Archives with unsafe entries (.., absolute paths, links leaving the skill,
devices, setuid files), over the caps, or skills with validation errors are
refused and nothing is written. A skill already in the target is replaced only
when skillctl installed it from the same source, or with --force.
See docs/install.md.`,
		Annotations: exitStatus(`  0  installed (or, with --dry-run, would install)
  1  refused or failed: unsafe or broken archive, validation errors, a
     conflict, a failed download or a --sha256 mismatch; nothing was changed
  2  bad flags or arguments
  3  a source or a --skill name that does not exist`),
		Example: `  skillctl install ./pdf.skill
  skillctl install https://example.com/skills.zip --sha256 3b1f...e9 --skill pdf
  skillctl install ./my-skill --scope project --agent claude --agent codex
  skillctl install bundle.tar.gz --dir ./skills --dry-run --json`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sources = args
			opts.JSON = f.Global.JSON
			opts.Quiet = f.Global.Quiet
			opts.Now = f.Now
			if opts.Targets.Scope != install.ScopeUser && opts.Targets.Scope != install.ScopeProject {
				return FlagErrorf("--scope must be user or project, not %q", opts.Targets.Scope)
			}
			if opts.Targets.Dir != "" && cmd.Flags().Changed("scope") {
				return FlagErrorf("--dir and --scope cannot be used together")
			}
			if opts.SHA256 != "" && len(args) > 1 {
				return FlagErrorf("--sha256 checks one source; install the sources one at a time")
			}
			if opts.SHA256 != "" {
				if _, err := hex.DecodeString(opts.SHA256); err != nil || len(opts.SHA256) != 64 {
					return FlagErrorf("--sha256 must be 64 hex digits, not %q", opts.SHA256)
				}
			}
			for _, s := range []struct{ flag, v string }{{"--max-file-size", opts.MaxFileSize}, {"--max-total-size", opts.MaxTotalSize}, {"--max-download", opts.MaxDownload}} {
				if _, err := parseSize(s.v); err != nil {
					return FlagErrorf("%s: %v", s.flag, err)
				}
			}
			if err := resolveTargets(f, &opts.Targets); err != nil {
				return err
			}
			opts.Cwd = opts.Targets.Cwd
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return installRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	addTargetFlags(cmd, &opts.Targets)
	fl.StringArrayVar(&opts.Skills, "skill", nil, "install only the skill `NAME` from a source holding several (repeatable)")
	fl.BoolVar(&opts.Force, "force", false, "replace skills not installed by skillctl or installed from another source")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "unpack and validate, report what would be installed, change nothing")
	fl.StringVar(&opts.SHA256, "sha256", "", "refuse the archive or download unless its sha256 is `HEX`")
	fl.IntVar(&opts.MaxEntries, "max-entries", archive.DefaultMaxEntries, "refuse sources with more than `N` entries")
	fl.StringVar(&opts.MaxFileSize, "max-file-size", "100MiB", "refuse a file unpacking to more than `SIZE`")
	fl.StringVar(&opts.MaxTotalSize, "max-total-size", "512MiB", "refuse a source unpacking to more than `SIZE` in all")
	fl.StringVar(&opts.MaxDownload, "max-download", "512MiB", "refuse a download larger than `SIZE`")
	fl.DurationVar(&opts.Timeout, "timeout", install.DefaultDownloadTimeout, "give up a download after `DURATION`")
	return cmd
}

// addTargetFlags adds --scope and --dir (install and uninstall).
func addTargetFlags(cmd *cobra.Command, t *install.TargetOptions) {
	cmd.Flags().StringVar(&t.Scope, "scope", install.ScopeUser, "use the skills folders of `SCOPE`: {user|project}")
	cmd.Flags().StringVar(&t.Dir, "dir", "", "use `DIR` as the target folder instead of the agents' folders")
	_ = cmd.RegisterFlagCompletionFunc("scope", fixedCompletion(install.ScopeUser, install.ScopeProject))
	_ = cmd.MarkFlagDirname("dir")
}

// resolveTargets fills in home, working folder and agents: --agent flags,
// else config agents:, else claude alone.
func resolveTargets(f *Factory, t *install.TargetOptions) error {
	cwd, err := f.Cwd()
	if err != nil {
		return err
	}
	t.Cwd, t.Home, t.Getenv = cwd, f.Home(), f.Getenv
	t.Agents = f.Global.Agents
	if len(t.Agents) == 0 && t.Dir == "" {
		cfg, err := f.Config()
		if err != nil {
			return err
		}
		t.Agents = cfg.Agents
	}
	if len(t.Agents) == 0 {
		t.Agents = []string{agents.DefaultInstall}
	}
	if t.Scope != "" && t.Scope != install.ScopeUser && t.Scope != install.ScopeProject {
		return FlagErrorf("--scope must be user or project, not %q", t.Scope)
	}
	return nil
}

// targetRoots is install.TargetRoots, saying which flag helps when it fails.
func targetRoots(t install.TargetOptions) ([]string, error) {
	roots, err := install.TargetRoots(t)
	switch {
	case errors.Is(err, install.ErrNoHome):
		return nil, &FlagError{Err: fmt.Errorf("%w, or use --dir", err)}
	case err != nil:
		return nil, &FlagError{Err: err}
	}
	return roots, nil
}

// installHint adds to an install or uninstall error the flag that gets
// past it; force says what --force does there.
func installHint(err error, force string) error {
	switch {
	case errors.Is(err, install.ErrConflict):
		return fmt.Errorf("%w; %s", err, force)
	case errors.Is(err, archive.ErrLimit):
		return fmt.Errorf("%w (raise the caps with --max-entries, --max-file-size, --max-total-size or --max-download)", err)
	case errors.Is(err, install.ErrChecksumUse):
		return &FlagError{Err: fmt.Errorf("--sha256: %w", err)}
	}
	return err
}

// parseSize reads 512MiB, 100MB, 2G, 1048576 (bytes); "0" and "unlimited"
// mean no cap.
func parseSize(s string) (int64, error) {
	v := strings.TrimSpace(strings.ToLower(s))
	if v == "unlimited" || v == "0" {
		return -1, nil
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size (like 512MiB, 2GiB or a number of bytes)", s)
	}
	return int64(n * float64(mult)), nil
}

func installRun(ctx context.Context, opts *installOptions) error {
	roots, err := targetRoots(opts.Targets)
	if err != nil {
		return err
	}
	perFile, _ := parseSize(opts.MaxFileSize)
	total, _ := parseSize(opts.MaxTotalSize)
	download, _ := parseSize(opts.MaxDownload)
	maxEntries := opts.MaxEntries
	if maxEntries <= 0 {
		maxEntries = -1
	}
	in := install.New(install.Options{
		Sources: opts.Sources, Roots: roots, Skills: opts.Skills, Force: opts.Force, DryRun: opts.DryRun,
		SHA256: strings.ToLower(opts.SHA256), Cwd: opts.Cwd, Now: opts.Now,
		Limits:           archive.Limits{MaxEntries: maxEntries, MaxEntryBytes: perFile, MaxTotalBytes: total},
		MaxDownloadBytes: download, DownloadTimeout: opts.Timeout,
	})
	bar := newProgressLine(opts.IO, opts.Quiet)
	if bar != nil {
		in.Progress = bar.update
	}
	res, err := in.Run(ctx)
	if bar != nil {
		bar.clear()
	}
	if err != nil {
		return installHint(err, "use --force to replace it")
	}
	for _, s := range res.Skipped {
		warnSkipped(opts.IO.ErrOut, s.Path, s.Reason)
	}
	if !opts.Quiet {
		var warnings []findings.Finding
		for _, s := range res.Skills {
			for _, w := range s.Warnings {
				w.File = s.Name + "/" + w.File
				warnings = append(warnings, w)
			}
		}
		st := findingStyle(opts.IO, false)
		st.Prefix = "warning: "
		if err := findings.WriteText(opts.IO.ErrOut, warnings, st); err != nil {
			return err
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, res.Skills)
	}
	tty := opts.IO.IsStdoutTTY()
	t := &render.Table{Header: []string{"NAME", "VERSION", "STATUS", "FILES", "SIZE", "PATH"}, Width: opts.IO.TerminalWidth()}
	for _, s := range res.Skills {
		version := s.DeclaredVersion
		if version == "" {
			version = "-"
		}
		t.Rows = append(t.Rows, []string{s.Name, version, s.Status, strconv.Itoa(s.FileInventory.TotalFiles),
			sizeCell(s.FileInventory.TotalSizeBytes, tty), s.Path})
	}
	if err := t.Print(opts.IO.Out, tty, render.ForStdout(opts.IO)); err != nil {
		return err
	}
	if tty && !opts.Quiet && opts.DryRun {
		fmt.Fprintln(opts.IO.ErrOut, "Dry run: nothing was changed.")
	}
	return nil
}

func sizeCell(n int64, tty bool) string {
	if tty {
		return skill.HumanSize(n)
	}
	return strconv.FormatInt(n, 10)
}

// progressLine redraws one line on a terminal's stderr while a source
// unpacks, once unpacking has taken longer than a moment.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	last  time.Time
	shown bool
	width int
}

// newProgressLine returns nil unless stderr is a terminal and talk is on.
func newProgressLine(ios *iostreams.IOStreams, quiet bool) *progressLine {
	if quiet || !ios.IsStderrTTY() {
		return nil
	}
	return &progressLine{w: ios.ErrOut, width: ios.TerminalWidth(), start: time.Now()}
}

func (p *progressLine) update(ev install.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < 300*time.Millisecond || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	line := fmt.Sprintf("Unpacking %s: %d files, %s", render.Truncate(ev.Source, max(10, p.width-40)), ev.Files, skill.HumanSize(ev.Bytes))
	fmt.Fprintf(p.w, "\r\033[K%s", safetext.Line(line))
	p.shown = true
}

func (p *progressLine) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
