package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/render"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/install"
)

type uninstallOptions struct {
	IO      *iostreams.IOStreams
	JSON    bool
	Quiet   bool
	Targets install.TargetOptions
	Names   []string
	Force   bool
	DryRun  bool
	// AgentsNamed: --agent or config agents: chose the folders.
	AgentsNamed bool
}

func init() { register(func(f *Factory) *cobra.Command { return newUninstallCmd(f, nil) }) }

func newUninstallCmd(f *Factory, runF func(context.Context, *uninstallOptions) error) *cobra.Command {
	opts := &uninstallOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "uninstall <name>... [--scope {user|project}] [--dir <dir>] [--agent <agent>]... [--force] [--dry-run]",
		Aliases: []string{"rm", "remove"},
		Short:   "Remove skills that skillctl installed",
		Long: `Remove each named skill (by name or folder name) from the target folders:
--dir, else the skills folder of --scope of every agent, or of each --agent
named. A skill installed for several agents is removed from all of them.

Only skills recorded in the scope's lock (see 'skillctl install --help') are
removed; --force also removes a folder skillctl did not install. Each folder
is first renamed into a staging folder, the lock file rewritten, then the
folder deleted, under the target's file lock: an interrupted uninstall is
finished by the next install or uninstall. Nothing is removed unless every
name can be.`,
		Annotations: exitStatus(`  0  removed (or, with --dry-run, would remove)
  1  a named folder was not installed by skillctl (use --force), or removal failed
  2  bad flags or arguments
  3  a name is not installed in any target folder`),
		Example: `  skillctl uninstall pdf
  skillctl uninstall pdf csv-report --scope project
  skillctl uninstall hand-made --dir ./skills --force`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeInstalledNames(f, &opts.Targets),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			opts.JSON = f.Global.JSON
			opts.Quiet = f.Global.Quiet
			if opts.Targets.Scope != install.ScopeUser && opts.Targets.Scope != install.ScopeProject {
				return FlagErrorf("--scope must be user or project, not %q", opts.Targets.Scope)
			}
			if opts.Targets.Dir != "" && cmd.Flags().Changed("scope") {
				return FlagErrorf("--dir and --scope cannot be used together")
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			opts.AgentsNamed = len(f.Global.Agents) > 0 || len(cfg.Agents) > 0
			if err := resolveTargets(f, &opts.Targets, true); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return uninstallRun(cmd.Context(), opts)
		},
	}
	addTargetFlags(cmd, &opts.Targets)
	cmd.Flags().BoolVar(&opts.Force, "force", false, "also remove folders skillctl did not install")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "report what would be removed, change nothing")
	return cmd
}

func uninstallRun(ctx context.Context, opts *uninstallOptions) error {
	roots, err := targetRoots(opts.Targets)
	if err != nil {
		return err
	}
	lockFile, legacy, err := scopeLock(opts.Targets)
	if err != nil {
		return err
	}
	everywhere := opts.Targets.Dir == "" && !opts.AgentsNamed
	out, err := install.NewUninstaller(install.UninstallOptions{Names: opts.Names, Roots: roots, Force: opts.Force, DryRun: opts.DryRun,
		Everywhere: everywhere, LockFile: lockFile, LegacyRoots: legacy}).Run(ctx)
	if err != nil {
		return installHint(err, "use --force to remove it anyway")
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, out)
	}
	tty := opts.IO.IsStdoutTTY()
	t := &render.Table{Header: []string{"NAME", "STATUS", "PATH"}, Width: opts.IO.TerminalWidth()}
	for _, r := range out {
		if r.Status == install.StatusKept {
			if !opts.Quiet {
				fmt.Fprintf(opts.IO.ErrOut, "warning: left %s: skillctl did not install it (--force removes it too)\n", safetext.Line(r.Path))
			}
			continue
		}
		t.Rows = append(t.Rows, []string{r.Name, r.Status, r.Path})
	}
	return t.Print(opts.IO.Out, tty, render.ForStdout(opts.IO))
}
