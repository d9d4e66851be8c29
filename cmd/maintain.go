package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/render"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/install"
	gitsource "github.com/skillctl/skillctl/pkg/source"
)

// maintainOptions are what outdated, update and verify share: the names,
// the target folders and the git settings.
type maintainOptions struct {
	IO         *iostreams.IOStreams
	JSON       bool
	Quiet      bool
	Names      []string
	Scope      install.LockScope
	Targets    install.TargetOptions
	GitTimeout time.Duration
	Force      bool
	DryRun     bool
	AllowRisk  []string
	FailOn     string
	Cwd        string
	Now        func() time.Time
}

// maintainScope is the lock outdated, update and verify read: that of
// --dir; else of --scope; else the project lock inside a repository and
// the user lock outside one. Its folders are every agent's of that scope.
func maintainScope(f *Factory, cmd *cobra.Command, t *install.TargetOptions) (install.LockScope, error) {
	if t.Dir != "" && cmd.Flags().Changed("scope") {
		return install.LockScope{}, FlagErrorf("--dir and --scope cannot be used together")
	}
	if err := resolveTargets(f, t, true); err != nil {
		return install.LockScope{}, err
	}
	if !cmd.Flags().Changed("scope") && t.Dir == "" {
		t.Scope = install.ScopeUser
		if agents.RepoTop(t.Cwd) != "" {
			t.Scope = install.ScopeProject
		}
	}
	lockFile, roots, err := scopeLock(*t)
	if err != nil {
		return install.LockScope{}, err
	}
	return install.LockScope{LockFile: lockFile, Roots: roots}, nil
}

func newMaintainCmd(f *Factory, use, short, long, exit, example string, run func(context.Context, *maintainOptions) error,
	flags func(*cobra.Command, *maintainOptions)) *cobra.Command {
	opts := &maintainOptions{IO: f.IO}
	var t install.TargetOptions
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long, Annotations: exitStatus(exit), Example: example,
		ValidArgsFunction: completeInstalledNames(f, &t),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names, opts.JSON, opts.Quiet = args, f.Global.JSON, f.Global.Quiet
			if t.Scope != install.ScopeUser && t.Scope != install.ScopeProject {
				return FlagErrorf("--scope must be user or project, not %q", t.Scope)
			}
			sc, err := maintainScope(f, cmd, &t)
			if err != nil {
				return err
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			opts.Scope, opts.Targets, opts.GitTimeout, opts.Cwd = sc, t, cfg.Git.Timeout, t.Cwd
			if opts.AllowRisk, err = allowRisk(opts.AllowRisk, cfg.Audit.Allow); err != nil {
				return err
			}
			opts.FailOn = cfg.Audit.FailOnLevel()
			return run(cmd.Context(), opts)
		},
	}
	addTargetFlags(cmd, &t)
	if flags != nil {
		flags(cmd, opts)
	}
	return cmd
}

func init() {
	register(func(f *Factory) *cobra.Command {
		return newMaintainCmd(f, "outdated [<name>...] [--scope {user|project}] [--dir <dir>]",
			"Show which installed skills have a newer version at their source",
			`For each skill installed from a git repository, ask the repository what the
ref it was installed from points at now (git ls-remote, in parallel, one query
per repository and ref) and compare it with the commit installed. Prints NAME,
CURRENT, LATEST, STATUS and SOURCE: up-to-date, outdated, pinned (installed at
a commit SHA or a tag, which do not move), unchecked (a folder or an archive
file) or error (the repository could not be asked; the reason follows). A
skill from a well-known index is compared by its digest in the index, one
from an archive URL by the digest of the download.

The skills are those of the lock of --dir, or of --scope: skillctl.lock at
the repository top (project) or $XDG_CONFIG_HOME/skillctl/skills.lock
(user). Without either, the project lock inside a repository, else the user
lock. 'skillctl update' installs the newer versions.`,
			`  0  checked (whether or not something is outdated)
  1  a lock could not be read
  2  bad flags or arguments
  3  a name is not installed by skillctl`,
			`  skillctl outdated
  skillctl outdated pdf --scope project
  skillctl outdated --json`,
			outdatedRun, nil)
	})
	register(func(f *Factory) *cobra.Command {
		return newMaintainCmd(f, "update [<name>...] [--dry-run] [--force] [--allow-risk <rule>]... [--scope {user|project}] [--dir <dir>]",
			"Install the newer version of outdated skills, keeping their ref",
			`Install the newer version of each outdated skill (see 'skillctl outdated'):
its source is fetched again at the ref it was installed from — a branch
moves, a commit SHA or a tag stays — and installed as 'skillctl install'
installs, all in one transaction: every source is fetched and checked before
anything changes, and the lock is written once. A skill whose files were
edited since it was installed is not replaced: the message names the changed
files, and --force replaces them. --dry-run shows what would be
updated, with the files each update changes, adds and removes, and changes
nothing.`,
			`  0  updated, or nothing to update
  1  an update failed or was refused (local edits, a conflict); nothing
     was changed
  2  bad flags or arguments
  3  a name is not installed by skillctl`,
			`  skillctl update
  skillctl update pdf --dry-run
  skillctl update --force`,
			updateRun, func(cmd *cobra.Command, o *maintainOptions) {
				cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "report what would be updated, change nothing")
				cmd.Flags().BoolVar(&o.Force, "force", false, "replace skills whose files were edited since they were installed")
				cmd.Flags().StringSliceVar(&o.AllowRisk, "allow-risk", nil, "update despite audit findings of `RULE` (repeatable)")
				_ = cmd.RegisterFlagCompletionFunc("allow-risk", completeAuditRules)
			})
	})
	register(func(f *Factory) *cobra.Command {
		return newMaintainCmd(f, "verify [<name>...] [--scope {user|project}] [--dir <dir>]",
			"Check that installed skills are as installed",
			`Recompute the tree hash of every installed skill and compare it with its
lock: ok, modified (with the changed, added and removed files), or missing.
Skill folders that no lock records are listed as untracked, which is not
drift. In CI, 'skillctl verify' fails when a committed skill was edited in
place without going through install or update.`,
			`  0  every skill is as installed
  1  a skill is modified or missing
  2  bad flags or arguments
  3  a name is not installed by skillctl`,
			`  skillctl verify
  skillctl verify pdf --scope project
  skillctl verify --dir ./skills --json`,
			verifyRun, nil)
	})
}

func outdatedRun(ctx context.Context, opts *maintainOptions) error {
	out, err := install.CheckOutdated(ctx, opts.Scope, opts.Names, gitsource.FetchOptions{Timeout: opts.GitTimeout})
	if err != nil {
		return err
	}
	if len(out) == 0 && !opts.JSON {
		opts.nothingRecorded()
		return nil
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, nonNil(out))
	}
	t := &render.Table{Header: []string{"NAME", "CURRENT", "LATEST", "STATUS", "SOURCE"}, Width: opts.IO.TerminalWidth()}
	for _, o := range out {
		status := o.Status
		if o.Error != "" && !opts.IO.IsStdoutTTY() {
			status += ": " + o.Error
		}
		t.Rows = append(t.Rows, []string{o.Name, short(o.Current), short(o.Latest), status, o.Source})
	}
	if err := t.Print(opts.IO.Out, opts.IO.IsStdoutTTY(), render.ForStdout(opts.IO)); err != nil {
		return err
	}
	if opts.IO.IsStdoutTTY() {
		for _, o := range out {
			if o.Error != "" {
				fmt.Fprintf(opts.IO.ErrOut, "warning: %s: %s\n", safetext.Line(o.Name), safetext.Line(o.Error))
			}
		}
	}
	return nil
}

// nothingRecorded says, on stderr, that the lock read records no skill,
// and which other lock there is.
func (opts *maintainOptions) nothingRecorded() {
	if opts.Quiet {
		return
	}
	other := "--scope project reads the project's"
	if opts.Targets.Scope == install.ScopeProject {
		other = "--scope user reads the user's"
	}
	if opts.Targets.Dir != "" {
		other = "without --dir, the scope's lock is read"
	}
	fmt.Fprintf(opts.IO.ErrOut, "No skills are recorded in %s; %s.\n", opts.Scope.LockFile, other)
}

func short(sha string) string { return sha[:min(12, len(sha))] }

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func updateRun(ctx context.Context, opts *maintainOptions) error {
	od, err := install.CheckOutdated(ctx, opts.Scope, opts.Names, gitsource.FetchOptions{Timeout: opts.GitTimeout})
	if err != nil {
		return err
	}
	for _, o := range od {
		if o.Status == install.OutdatedError && !opts.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s: not updated: %s\n", safetext.Line(o.Name), safetext.Line(o.Error))
		}
	}
	var done []install.Installed
	if plans := install.PlanUpdates(od); len(plans) > 0 {
		var jobs []install.Job
		var names []string
		for _, p := range plans {
			jobs = append(jobs, install.Job{Sources: []string{p.Source}, Roots: p.Roots, Skills: p.Skills, Ref: p.Ref, Subdir: p.Subdir})
			names = append(names, p.Skills...)
		}
		in := install.New(install.Options{Jobs: jobs, LockFile: opts.Scope.LockFile, LegacyRoots: opts.Scope.Roots,
			Force: opts.Force, DryRun: opts.DryRun, GitTimeout: opts.GitTimeout, Cwd: opts.Cwd, Now: opts.Now,
			AuditFailOn: opts.FailOn, AllowRisk: opts.AllowRisk})
		res, err := in.Run(ctx)
		if err != nil {
			return installHint(fmt.Errorf("update %s: %w", strings.Join(names, ", "), err), "use --force to replace the edited files")
		}
		done = res.Skills
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, nonNil(done))
	}
	if len(done) == 0 {
		if !opts.Quiet {
			fmt.Fprintln(opts.IO.ErrOut, "Nothing to update.")
		}
		return nil
	}
	t := &render.Table{Header: []string{"NAME", "STATUS", "COMMIT", "PATH", "CHANGES"}, Width: opts.IO.TerminalWidth()}
	for _, s := range done {
		t.Rows = append(t.Rows, []string{s.Name, s.Status, short(s.Source.Commit), s.Path, s.Changes})
	}
	return t.Print(opts.IO.Out, opts.IO.IsStdoutTTY(), render.ForStdout(opts.IO))
}

func verifyRun(ctx context.Context, opts *maintainOptions) error {
	out, err := install.Verify(ctx, opts.Scope, opts.Names)
	if err != nil {
		return err
	}
	if len(out) == 0 && !opts.JSON {
		opts.nothingRecorded()
		return nil
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, nonNil(out)); err != nil {
			return err
		}
	} else {
		t := &render.Table{Header: []string{"NAME", "STATUS", "PATH", "CHANGES"}, Width: opts.IO.TerminalWidth()}
		for _, v := range out {
			t.Rows = append(t.Rows, []string{v.Name, v.Status, v.Path, v.Changes})
		}
		if err := t.Print(opts.IO.Out, opts.IO.IsStdoutTTY(), render.ForStdout(opts.IO)); err != nil {
			return err
		}
	}
	if install.Drift(out) {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}
