package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/audit"
	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/install"
)

type auditOptions struct {
	IO       *iostreams.IOStreams
	Discover func(ctx context.Context) ([]string, error)
	Cwd      string
	Args     []string
	Format   string
	FailOn   string
	Baseline string
	Version  string
	Quiet    bool
}

func init() { register(func(f *Factory) *cobra.Command { return newAuditCmd(f, nil) }) }

func newAuditCmd(f *Factory, runF func(context.Context, *auditOptions) error) *cobra.Command {
	opts := &auditOptions{IO: f.IO, Version: Version()}
	cmd := &cobra.Command{
		Use:   "audit [<path|source>...] [--format {text|json|github|sarif}] [--fail-on <severity>] [--baseline <file>]",
		Short: "Look for what makes a skill dangerous to load or run",
		Long: `Read every file of each skill — SKILL.md, references, scripts of any language,
hidden files, and binaries by their content — and report what a careful
reviewer would stop at: hidden text (Unicode tag characters, bidi controls,
zero-width characters, HTML comments that speak to the agent), prompt
injection (ignore your instructions, hide this from the user, send the keys
away, turn off approvals), remote code (a download piped into a shell,
decoded or fetched code run with eval, compiled executables, archives in
scripts/), credential access (SSH keys, cloud credentials, browser profiles,
the keychain, .env files, environment dumps), exfiltration (request-catcher
and paste endpoints, bare IP addresses, DNS lookups built from data, Markdown
images whose URL carries data) and capability mismatches (persistence in
shell start-up files, cron, launch agents or git hooks; an unscoped
allowed-tools; network and secrets the permissions field does not declare).

A path is a skill folder, a SKILL.md or a tree of skills; anything else is a
SOURCE as 'skillctl install' takes it (an archive, a URL, a git repository, a
well-known index), unpacked into a temporary folder and audited there, with
nothing installed. Without a path, every discovered skill is audited.

Each finding has a severity — critical, high, medium, low or info — and the
rule, the file, line and column, the matched text with invisible characters
written out (\u{200B}), why it matters and how to fix it. A command shown in
Markdown documentation beside SKILL.md (an installer piped to a shell, an
export line for ~/.bashrc in references/) counts as medium; the same line in
SKILL.md, which tells the agent what to do, or in a script counts as high. An
injection phrase in quotation marks (an example of it) counts as medium.

The exit status is 1 when a finding is at or above --fail-on (the
configuration's audit.failOn, else high). --baseline FILE accepts the
findings FILE lists — the output of 'skillctl audit --format json', or an
array of {rule, file, fingerprint} — so that CI fails only on new ones.
'skillctl help audit-rules' lists every rule.`,
		Annotations: exitStatus(`  0  no finding at or above --fail-on
  1  a finding at or above --fail-on
  2  bad flags or arguments
  3  a path or source does not exist`),
		Example: `  skillctl audit ./my-skill
  skillctl audit anthropics/skills
  skillctl audit downloaded.zip --fail-on medium
  skillctl audit --format json skills/ > audit-baseline.json
  skillctl audit --baseline audit-baseline.json --format github skills/`,
		ValidArgsFunction: completeFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args, opts.Quiet = args, f.Global.Quiet
			if !slices.Contains(validateFormats, opts.Format) {
				return FlagErrorf("--format must be one of %s, not %q", strings.Join(validateFormats, ", "), opts.Format)
			}
			if f.Global.JSON {
				if cmd.Flags().Changed("format") && opts.Format != "json" {
					return FlagErrorf("--json and --format %s cannot be used together", opts.Format)
				}
				opts.Format = "json"
			}
			if !cmd.Flags().Changed("fail-on") {
				cfg, err := f.Config()
				if err != nil {
					return err
				}
				opts.FailOn = cfg.Audit.FailOnLevel()
			}
			if err := audit.CheckLevel(opts.FailOn); err != nil {
				return FlagErrorf("--fail-on: %v", err)
			}
			cwd, err := f.Cwd()
			if err != nil {
				return err
			}
			opts.Cwd = cwd
			opts.Discover = f.discoveredSkillDirs
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return auditRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: {text|json|github|sarif}")
	cmd.Flags().StringVar(&opts.FailOn, "fail-on", findings.High, "exit 1 at `SEVERITY` and above: {critical|high|medium|low|info|none}")
	cmd.Flags().StringVar(&opts.Baseline, "baseline", "", "accept the findings listed in `FILE` (audit --format json output)")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(validateFormats...))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", fixedCompletion(audit.Levels...))
	return cmd
}

// isLocalSkillPath reports whether arg names a skill folder, a SKILL.md or
// a folder tree (not an archive or a remote source).
func isLocalSkillPath(arg, cwd string) bool {
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	return fi.IsDir() || strings.EqualFold(filepath.Base(p), "SKILL.md")
}

func auditRun(ctx context.Context, opts *auditOptions) error {
	var base audit.Baseline
	if opts.Baseline != "" {
		p := opts.Baseline
		if !filepath.IsAbs(p) {
			p = filepath.Join(opts.Cwd, p)
		}
		b, err := audit.ReadBaseline(p)
		if err != nil {
			return err
		}
		base = b
	}
	var local []string
	rep := &audit.Report{}
	if len(opts.Args) == 0 {
		dirs, err := opts.Discover(ctx)
		if err != nil {
			return err
		}
		local = dirs
	}
	for _, arg := range opts.Args {
		if isLocalSkillPath(arg, opts.Cwd) {
			local = append(local, arg)
			continue
		}
		// A SOURCE: unpacked as install would, nothing installed.
		prev, err := install.New(install.Options{Sources: []string{arg}, Cwd: opts.Cwd}).Preview(ctx)
		if err != nil {
			return installHint(err, "")
		}
		for _, s := range prev.Skills {
			display := arg
			if s.Path != "." && s.Path != "" {
				display += "!/" + s.Path
			}
			res, err := audit.Dir(ctx, s.Dir, display)
			if err != nil {
				prev.Close()
				return err
			}
			rep.Results = append(rep.Results, res)
		}
		prev.Close()
	}
	if len(local) > 0 {
		r, err := audit.Run(ctx, local, opts.Cwd)
		if err != nil {
			return err
		}
		rep.Results = append(r.Results, rep.Results...)
	}
	if base != nil {
		rep.Apply(base)
	}
	out := opts.IO.Out
	var err error
	switch opts.Format {
	case "json":
		err = rep.WriteJSON(out)
	case "github":
		err = findings.WriteGitHub(out, findings.Relative(rep.Shared(), opts.Cwd, agents.RepoTop(opts.Cwd)))
	case "sarif":
		top := agents.RepoTop(opts.Cwd)
		tool := audit.SARIFTool(opts.Version)
		fs := rep.Shared()
		if top != "" {
			tool.SrcRoot = top
			fs = findings.Relative(fs, opts.Cwd, top)
		}
		err = findings.WriteSARIF(out, tool, fs)
	default:
		err = writeAuditText(out, rep, opts)
	}
	if err != nil {
		return err
	}
	if rep.Failed(opts.FailOn) {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

func writeAuditText(w io.Writer, rep *audit.Report, opts *auditOptions) error {
	if err := findings.WriteText(w, rep.Shared(), findingStyle(opts.IO, true)); err != nil {
		return err
	}
	if opts.Quiet {
		return nil
	}
	counts := rep.Count()
	var parts []string
	for _, sev := range audit.Levels[:5] {
		if counts[sev] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[sev], sev))
		}
	}
	summary := "no findings"
	if len(parts) > 0 {
		summary = strings.Join(parts, ", ")
	}
	if rep.Accepted > 0 {
		summary += fmt.Sprintf(" (%d accepted by the baseline)", rep.Accepted)
	}
	verdict := "fails at " + opts.FailOn
	if opts.FailOn == "none" {
		verdict = "--fail-on none"
	} else if !rep.Failed(opts.FailOn) {
		verdict = "nothing at " + opts.FailOn + " or above"
	}
	_, err := fmt.Fprintf(opts.IO.ErrOut, "%d skill(s) audited: %s; %s.\n", len(rep.Results), summary, verdict)
	return err
}
