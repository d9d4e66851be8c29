package cmd

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
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
	"github.com/skillctl/skillctl/pkg/audit"
	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/install"
	"github.com/skillctl/skillctl/pkg/skill"
	gitsource "github.com/skillctl/skillctl/pkg/source"
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
	Strict       bool
	SkipInvalid  bool
	List         bool
	Neighbours   []install.Neighbour
	SHA256       string
	Ref          string
	Subdir       string
	GitTimeout   time.Duration
	Frozen       bool
	LockFile     string
	AllowRisk    []string
	AuditFailOn  string
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
		Use:     "install [<source>...] [--scope {user|project}] [--dir <dir>] [--agent <agent>]... [--skill <name>]... [--list] [--skip-invalid] [--strict] [--force] [--dry-run] [--sha256 <hex>] [--ref <ref>] [--subdir <path>] [--frozen] [--lockfile <file>] [--allow-risk <rule>]...",
		Aliases: []string{"add"},
		Short:   "Install skills from archives, folders, git repositories or URLs",
		Long: `Install the skills held by each SOURCE, recognised in this order:
  a path       an archive file (zip, .skill, tar, tar.gz, tar.bz2, tar.xz or
               tar.zst, recognised by its content, not its name), a folder, or
               a SKILL.md (its folder is the skill)
  an archive URL  https://example.com/skills.zip
  a GitHub shorthand  owner/repo, owner/repo/sub/path, owner/repo@REF,
               github:owner/repo
  a tree URL   https://github.com/o/r/tree/REF/path,
               https://gitlab.com/g/r/-/tree/REF/path
  a git URL    https://host/x.git, git+https://..., ssh://..., git@host:o/r.git,
               file:///srv/r.git, each with an optional #REF
  a skills index  https://example.com (its /.well-known/agent-skills/index.json),
               each skill's digest checked
--ref (a branch, a tag or a full commit SHA) and --subdir set what a form does
not carry. Git runs as the git binary, shallow and sparse where the server
allows, without prompts, hooks, submodules or LFS downloads, within config
git.timeout (120s); private repositories work through your git credentials,
and url.<base>.insteadOf rules point a shorthand at a mirror. The lock
records the repository, the ref and the commit. --list shows what a source
holds, with any problems, and installs nothing.

Without a source, install restores every skill the scope's lock records into
the folders it records: each from its source at the recorded commit or
sha256, checked against the recorded tree hash, with the lock entries kept as
they are. Everything is fetched and checked first: a source that changed or
is gone stops the restore with nothing changed. --lockfile FILE restores the
skills of FILE instead, into the target folders: a skillctl lock, or a
skills-lock.json of vercel-labs/skills (version 1), whose skills are installed
from their sources and recorded. --frozen (for CI) also fails when the
restore would change the lock.

A source may hold SKILL.md at its top, one folder holding SKILL.md, or several
skill folders; all are installed unless --skill picks some (a name or a glob).
Each skill goes into <target>/<folder>/, the folder named after its name as a
slug ("Toggl Automation" goes into toggl-automation/). The target is --dir,
else the skills folder of --scope (user: ~/.claude/skills; project:
.claude/skills at the repository top) for each --agent (claude when none is
given; agents, codex and opencode have their own folders): one copy each.

What is installed is what agents load: a skill is refused only when agents
could not load it (its SKILL.md cannot be read, or it has no description) or
it is unsafe (.., absolute paths, links leaving the skill, devices, setuid
files, over the caps). Other validation findings are summarised as warnings;
--strict refuses any validation error. Each skill is audited too ('skillctl
audit'): a finding at or above audit.failOn (high unless the configuration
says otherwise) refuses it, naming the finding; --allow-risk RULE accepts
that rule, and the lock records the rules accepted, which a restore accepts
again. A source is installed all or nothing:
when one of its skills is refused, nothing is installed and every refusal is
listed; --skip-invalid installs the others.

Everything is unpacked and checked in a staging folder beside the target
before anything there changes; then each skill is swapped into place and the
lock rewritten, under a file lock. The lock records every skill, its folders
and its source: skillctl.lock at the repository top (project scope, meant to
be committed), $XDG_CONFIG_HOME/skillctl/skills.lock (user scope), or
DIR/.skillctl-lock.json (--dir). Installing the
same files again says unchanged and touches nothing. A skill already in the
target is replaced only when skillctl installed it from the same source and
its files were not edited since, or with --force. A skill of the same name in
another agent's folder is pointed out: where an agent loads both, one hides
the other.`,
		Annotations: exitStatus(`  0  installed, unchanged or listed (with --skip-invalid, also when some
     skills were skipped)
  1  refused or failed: an unsafe or broken archive, a skill agents could
     not load, a conflict or local edits, a failed download or a --sha256
     mismatch; nothing was changed
  2  bad flags or arguments
  3  a source or a --skill name that does not exist`),
		Example: `  skillctl install ./pdf.skill
  skillctl install ./pdf/SKILL.md
  skillctl install skills.zip --list
  skillctl install https://example.com/skills.zip --sha256 3b1f...e9 --skill pdf
  skillctl install ./repo-of-skills --skip-invalid
  skillctl install anthropics/skills --skill pdf
  skillctl install https://github.com/o/r/tree/v1.2/skills/pdf
  skillctl install ./my-skill --scope project --agent claude --agent codex
  skillctl install --scope project --frozen
  skillctl install bundle.tar.gz --dir ./skills --dry-run --json`,
		ValidArgsFunction: completeFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sources = args
			if len(args) == 0 {
				for _, fl := range []string{"list", "sha256", "ref", "subdir", "skill", "skip-invalid", "strict"} {
					if cmd.Flags().Changed(fl) {
						return FlagErrorf("--%s needs a SOURCE; without one, install restores what the lock records", fl)
					}
				}
			} else if opts.Frozen || opts.LockFile != "" {
				return FlagErrorf("--frozen and --lockfile restore from a lock: give no SOURCE")
			}
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
			if err := resolveTargets(f, &opts.Targets, false); err != nil {
				return err
			}
			opts.Cwd = opts.Targets.Cwd
			if opts.Targets.Dir == "" {
				opts.Neighbours = neighbours(opts.Targets)
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			opts.GitTimeout = cfg.Git.Timeout
			if opts.AllowRisk, err = allowRisk(opts.AllowRisk, cfg.Audit.Allow); err != nil {
				return err
			}
			opts.AuditFailOn = cfg.Audit.FailOnLevel()
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return installRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	addTargetFlags(cmd, &opts.Targets)
	fl.StringArrayVar(&opts.Skills, "skill", nil, "install only the skill `NAME` from a source holding several (repeatable)")
	fl.BoolVar(&opts.Force, "force", false, "replace skills not installed by skillctl, installed from another source, or edited since")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "unpack and check, report what would be installed, change nothing")
	fl.BoolVar(&opts.List, "list", false, "list the skills the sources hold, with their problems; install nothing")
	fl.BoolVar(&opts.SkipInvalid, "skip-invalid", false, "install the skills that can be installed and report the others")
	fl.BoolVar(&opts.Strict, "strict", false, "refuse skills with any validation error")
	fl.StringVar(&opts.SHA256, "sha256", "", "refuse the archive or download unless its sha256 is `HEX`")
	fl.StringVar(&opts.Ref, "ref", "", "the branch, tag or commit SHA of a git source (`REF`)")
	fl.StringVar(&opts.Subdir, "subdir", "", "the `PATH` of the skills in a git source")
	fl.BoolVar(&opts.Frozen, "frozen", false, "restore, and fail if the lock would change (CI)")
	fl.StringSliceVar(&opts.AllowRisk, "allow-risk", nil, "install despite audit findings of `RULE` (repeatable; see 'skillctl help audit-rules')")
	_ = cmd.RegisterFlagCompletionFunc("allow-risk", completeAuditRules)
	fl.StringVar(&opts.LockFile, "lockfile", "", "restore the skills of `FILE` (a skillctl lock or a skills-lock.json) into the target folders")
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
// else config agents:, else claude alone — or, with every, every known
// agent (uninstall looks in all of their folders).
func resolveTargets(f *Factory, t *install.TargetOptions, every bool) error {
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
		if every {
			t.Agents = agents.Names()
		}
	}
	if t.Scope != "" && t.Scope != install.ScopeUser && t.Scope != install.ScopeProject {
		return FlagErrorf("--scope must be user or project, not %q", t.Scope)
	}
	return nil
}

// neighbours are the skill folders of every agent, in both scopes, that
// an install may put a namesake beside.
func neighbours(t install.TargetOptions) []install.Neighbour {
	var out []install.Neighbour
	all := t
	all.Agents = agents.Names()
	for _, scope := range []string{install.ScopeUser, install.ScopeProject} {
		all.Scope = scope
		if roots, err := install.LoadRoots(all); err == nil {
			for _, r := range roots {
				out = append(out, install.Neighbour{Dir: r, Label: scope})
			}
		}
	}
	return out
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

// scopeLock is the lock file of the targets t name, and the folders of
// their scope whose older (version 1) locks it takes in.
func scopeLock(t install.TargetOptions) (string, []string, error) {
	lockFile, err := install.LockPath(t)
	if err != nil {
		if errors.Is(err, install.ErrNoHome) {
			return "", nil, &FlagError{Err: fmt.Errorf("%w, or use --dir", err)}
		}
		return "", nil, err
	}
	legacy, err := install.ScopeRoots(t)
	if err != nil {
		return "", nil, err
	}
	return lockFile, legacy, nil
}

// allowRisk checks the rules of --allow-risk (with did-you-mean) and adds
// the configuration's audit.allow.
func allowRisk(flag, cfg []string) ([]string, error) {
	var ids []string
	for _, r := range audit.Rules {
		ids = append(ids, r.ID)
	}
	for _, r := range flag {
		if _, ok := audit.Lookup(r); !ok {
			msg := fmt.Sprintf("--allow-risk: no audit rule %q", r)
			if c := skill.Closest(r, ids); len(c) > 0 {
				msg += "; did you mean " + strings.Join(c, " or ") + "?"
			}
			return nil, FlagErrorf("%s ('skillctl help audit-rules' lists them)", msg)
		}
	}
	return append(append([]string(nil), flag...), cfg...), nil
}

// completeAuditRules offers the audit rule ids.
func completeAuditRules(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, r := range audit.Rules {
		out = append(out, r.ID+"\t"+r.Severity+": "+r.Message)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// userLock is the user scope's lock file ("" without a home folder).
func (f *Factory) userLock() string {
	p, _ := install.LockPath(install.TargetOptions{Scope: install.ScopeUser, Home: f.Home(), Getenv: f.Getenv})
	return p
}

// installHint adds to an install or uninstall error the flag that gets
// past it; force says what --force does there.
func installHint(err error, force string) error {
	var ce *install.ConflictError
	switch {
	case errors.As(err, &ce) && ce.Unforceable:
		return err // --force would not help
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
	lockFile, legacy, err := scopeLock(opts.Targets)
	if err != nil {
		return err
	}
	for _, src := range opts.Sources {
		if gitsource.Insecure(src) && !opts.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s is fetched over plain http: anyone on the way can change it; use https unless it is a mirror on your own network\n",
				safetext.Line(gitsource.Redact(src)))
		}
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
		Strict: opts.Strict, SkipInvalid: opts.SkipInvalid, Neighbours: opts.Neighbours,
		SHA256: strings.ToLower(opts.SHA256), Cwd: opts.Cwd, Now: opts.Now,
		Limits:           archive.Limits{MaxEntries: maxEntries, MaxEntryBytes: perFile, MaxTotalBytes: total},
		MaxDownloadBytes: download, DownloadTimeout: opts.Timeout,
		Ref: opts.Ref, Subdir: opts.Subdir, GitTimeout: opts.GitTimeout,
		LockFile: lockFile, LegacyRoots: legacy,
		AuditFailOn: opts.AuditFailOn, AllowRisk: opts.AllowRisk,
	})
	bar := newProgressLine(opts.IO, opts.Quiet)
	if bar != nil {
		in.Progress = bar.update
	}
	if opts.List {
		return installList(ctx, opts, in, bar)
	}
	var res *install.Result
	if len(opts.Sources) == 0 {
		from := opts.LockFile
		if from != "" && !filepath.IsAbs(from) {
			from = filepath.Join(opts.Cwd, from)
		}
		res, err = in.Restore(ctx, install.RestoreOptions{LockFile: from, Frozen: opts.Frozen})
	} else {
		res, err = in.Run(ctx)
	}
	if bar != nil {
		bar.clear()
	}
	if err != nil {
		return installHint(err, "use --force to replace it")
	}
	for _, s := range res.Skipped {
		warnSkipped(opts.IO.ErrOut, s.Path, s.Reason)
	}
	errOut := opts.IO.ErrOut
	if !opts.Quiet {
		var all []findings.Finding
		for _, s := range res.Skills {
			if s.Target != res.Skills[0].Target && len(roots) > 1 || s.Status == install.StatusUnchanged {
				continue // the same skills in every root, or nothing new: say it once
			}
			for _, w := range s.Warnings {
				if w.Severity == findings.Error || w.Severity == findings.Warning {
					w.File = s.Folder + "/" + w.File
					all = append(all, w)
				}
			}
		}
		if err := summariseFindings(errOut, opts.IO, all, opts.Sources); err != nil {
			return err
		}
		var renamed []string
		seen := map[string]bool{}
		for _, s := range res.Skills {
			if s.Folder != s.Name && !seen[s.Folder] && s.Status != install.StatusUnchanged {
				seen[s.Folder] = true
				renamed = append(renamed, safetext.Line(s.Name)+" → "+s.Folder)
			}
		}
		if len(renamed) > 0 {
			more := ""
			if len(renamed) > 5 {
				more = fmt.Sprintf(", and %d more", len(renamed)-5)
				renamed = renamed[:5]
			}
			fmt.Fprintf(errOut, "warning: %d skill(s) go into a folder named after their name as a slug: %s%s\n", len(seen), strings.Join(renamed, ", "), more)
		}
		for _, r := range res.Refused {
			fmt.Fprintf(errOut, "warning: skipped %s in %s: %s\n", safetext.Line(r.Skill), safetext.Line(r.Source), safetext.Line(strings.Join(r.Reasons, "; ")))
		}
		for _, sh := range res.Shadows {
			fmt.Fprintf(errOut, "warning: %s is also in %s (%s): where an agent loads both folders, one hides the other ('skillctl list --all' shows which)\n",
				safetext.Line(sh.Name), safetext.Line(sh.Other), sh.Label)
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, res)
	}
	tty := opts.IO.IsStdoutTTY()
	st := render.ForStdout(opts.IO)
	w := opts.IO.Out
	for _, s := range res.Skills {
		version := s.DeclaredVersion
		if version == "" {
			version = "-"
		}
		if !tty {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.Status, safetext.Line(s.Name), safetext.Line(version), s.Path)
			continue
		}
		line := fmt.Sprintf("%s %s %s → %s", st.Bold.Render(s.Status), safetext.Line(s.Name), safetext.Line(version), s.Path)
		if s.Source.Location != "" {
			line += st.Faint.Render(" (from " + safetext.Line(s.Source.Location) + ")")
		}
		fmt.Fprintln(w, line)
	}
	if tty && !opts.Quiet && opts.DryRun {
		fmt.Fprintln(errOut, "Dry run: nothing was changed.")
	}
	return nil
}

// summariseFindings prints the validation findings of installed skills in
// short: how many, the first few, and the command that shows them all.
func summariseFindings(w io.Writer, ios *iostreams.IOStreams, all []findings.Finding, sources []string) error {
	if len(all) == 0 {
		return nil
	}
	const first = 5
	skills := map[string]bool{}
	for _, f := range all {
		skills[strings.SplitN(f.File, "/", 2)[0]] = true
	}
	fmt.Fprintf(w, "warning: %d validation finding(s) in %d skill(s), installed anyway (agents load them):\n", len(all), len(skills))
	st := findingStyle(ios, false)
	st.Prefix = "  "
	shown := all
	if len(shown) > first {
		shown = shown[:first]
	}
	if err := findings.WriteText(w, shown, st); err != nil {
		return err
	}
	if len(all) > first {
		fmt.Fprintf(w, "  … and %d more.\n", len(all)-first)
	}
	quoted := make([]string, len(sources))
	for i, s := range sources {
		quoted[i] = shellQuote(s)
	}
	fmt.Fprintf(w, "  See them all with: skillctl validate %s (--strict refuses skills with errors)\n", safetext.Line(strings.Join(quoted, " ")))
	return nil
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// installList prints what the sources hold (install --list).
func installList(ctx context.Context, opts *installOptions, in *install.Installer, bar *progressLine) error {
	p, err := in.Preview(ctx)
	if bar != nil {
		bar.clear()
	}
	if err != nil {
		return installHint(err, "")
	}
	defer p.Close()
	for _, s := range p.Skipped {
		warnSkipped(opts.IO.ErrOut, s.Path, s.Reason)
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, p.Skills)
	}
	tty := opts.IO.IsStdoutTTY()
	t := &render.Table{Header: []string{"NAME", "FOLDER", "VERSION", "FILES", "SIZE", "STATUS", "DESCRIPTION"},
		Width: opts.IO.TerminalWidth(), Truncate: map[int]bool{6: true}}
	refused := 0
	for _, s := range p.Skills {
		status := "ok"
		switch {
		case len(s.Problems) > 0:
			status = "refused: " + strings.Join(s.Problems, "; ")
			refused++
		case s.Errors+s.Warnings > 0:
			status = fmt.Sprintf("ok, %d error(s), %d warning(s)", s.Errors, s.Warnings)
		}
		version := s.Version
		if version == "" {
			version = "-"
		}
		folder := s.Folder
		if folder == "" {
			folder = "-"
		}
		t.Rows = append(t.Rows, []string{s.Name, folder, version, strconv.Itoa(s.Files), sizeCell(s.Size, tty), status, s.Description})
	}
	if err := t.Print(opts.IO.Out, tty, render.ForStdout(opts.IO)); err != nil {
		return err
	}
	if tty && !opts.Quiet {
		fmt.Fprintf(opts.IO.ErrOut, "%d skill(s), %d would be refused. Nothing was installed.\n", len(p.Skills), refused)
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
