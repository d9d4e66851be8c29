package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/config"
	"github.com/skillctl/skillctl/pkg/run"
	"github.com/skillctl/skillctl/pkg/skill"
)

type runOptions struct {
	IO      *iostreams.IOStreams
	Resolve func(ctx context.Context, arg string) (*skill.Skill, error)
	Config  func() (*config.Config, error)
	Getenv  func(string) string
	Now     func() time.Time
	Cwd     string
	// StateDir holds runs.jsonl; Self is the skillctl executable (the sandbox helper).
	StateDir string
	Self     string
	JSON     bool
	Quiet    bool

	Name         string
	Args         []string
	Mode         string
	Inputs       []string
	InputJSON    string
	Timeout      time.Duration
	Entry        string
	Workdir      string
	Allow        []string
	Env          []string
	Isolation    string
	Yes          bool
	AllowMissing bool
}

func init() { register(func(f *Factory) *cobra.Command { return newRunCmd(f, nil) }) }

func newRunCmd(f *Factory, runF func(context.Context, *runOptions) error) *cobra.Command {
	opts := &runOptions{IO: f.IO}
	var timeout string
	cmd := &cobra.Command{
		Use:   "run <name|id|path> [flags] [-- <args>...]",
		Short: "Run a skill: its script in a sandbox, or its body with placeholders filled",
		Long: `Run a skill, named by its name, its id, or a path to its folder or SKILL.md.

The mode is --mode, else the skill's mode:, else the config's run.defaultMode,
else auto. Auto is sandbox when the skill has an entrypoint (entrypoint:, or
one of scripts/run*, scripts/execute*) and direct otherwise: a skill of plain
instructions prints its body. 'skillctl list' shows the mode each skill gets.

direct: prints the body with {{input.NAME}}, {{system.*}}, $ARGUMENTS, $N and
${CLAUDE_SKILL_DIR} filled in. A placeholder without a value is an error that
lists every missing name (--allow-missing leaves them as written).

sandbox: runs the skill's entrypoint script (--entry, else entrypoint:, else
scripts/run*, scripts/execute*) with an empty environment (PATH, HOME, TMPDIR,
SKILL_* and the --env grants), the input JSON on stdin and in
$SKILL_INPUT_FILE, in the strongest isolation available: bwrap, then
namespaces, then landlock on Linux; seatbelt on macOS. The isolation achieved
is printed on stderr and reported in --json. When none is available, nothing
runs (exit 125) unless --isolation none is given, which runs the script
UNSANDBOXED. The network is reachable only when the skill declares network
and --allow network is given. At the timeout the script and everything it
started get SIGTERM, then SIGKILL 2 seconds later.

Without --json the script's output streams through; with --json one result
document is printed (output and error capped at 1 MiB each). Every run is
recorded in $XDG_STATE_HOME/skillctl/runs.jsonl.`,
		Annotations: exitStatus(`  0    the skill ran and succeeded
  1    the run failed (the script could not be started)
  2    bad flags, arguments or input (a missing placeholder value)
  3    no such skill, or no entrypoint script
  4    denied: a permission rule, a confirmation that was not given, direct
       mode disabled
  124  the script timed out
  125  no sandbox could be set up at the isolation asked for (nothing ran)
  130  interrupted
  N    the script's own exit status when it ran and failed`),
		Example: `  skillctl run release-notes --mode direct --input version=2.1 --input product=Acme \
    --input changes='- faster startup'
  skillctl run hello-sandbox --input name=Ada
  skillctl run hello-sandbox --json --input-json '{"name": "Ada"}'
  skillctl run ./my-skill --timeout 5s --workdir out -- --verbose
  skillctl run fetcher --allow network --env API_TOKEN
  skillctl run hello-sandbox --isolation none --yes`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeSkillNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			switch {
			case dash == 0:
				return FlagErrorf("name the skill before --")
			case dash < 0 && len(args) > 1:
				return FlagErrorf("unexpected arguments %q: pass arguments for the skill after --", strings.Join(args[1:], " "))
			}
			opts.Name, opts.Args = args[0], args[1:]
			if opts.Mode != "" && opts.Mode != skill.ModeSandbox && opts.Mode != skill.ModeDirect && opts.Mode != skill.ModeAuto {
				return FlagErrorf("--mode must be auto, sandbox or direct, not %q", opts.Mode)
			}
			if opts.Isolation != "" && !slices.Contains(run.Tiers, opts.Isolation) {
				return FlagErrorf("--isolation must be one of %s, not %q", strings.Join(run.Tiers, ", "), opts.Isolation)
			}
			for _, a := range opts.Allow {
				if a != run.PermNetwork {
					return FlagErrorf("--allow takes network, not %q (environment variables are granted with --env NAME)", a)
				}
			}
			for _, e := range opts.Env {
				if e == "" || strings.ContainsAny(e, "= ") {
					return FlagErrorf("--env takes a variable name (like API_TOKEN), not %q", e)
				}
			}
			if timeout != "" {
				d, err := config.ParseTimeout(timeout)
				if err != nil {
					return FlagErrorf("--timeout: %v", err)
				}
				opts.Timeout = d
			}
			opts.JSON, opts.Quiet = f.Global.JSON, f.Global.Quiet
			opts.Resolve, opts.Config, opts.Getenv, opts.Now = f.ResolveSkill, f.Config, f.Getenv, f.Now
			cwd, err := f.Cwd()
			if err != nil {
				return err
			}
			opts.Cwd = cwd
			opts.StateDir = run.StateDir(f.Getenv("XDG_STATE_HOME"), f.Home())
			if self, err := os.Executable(); err == nil {
				opts.Self = self
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Mode, "mode", "", "run in `MODE`: {auto|sandbox|direct} (auto: sandbox when the skill has an entrypoint)")
	fl.StringArrayVarP(&opts.Inputs, "input", "i", nil, "input value `KEY=VALUE`; dotted keys nest (repeatable)")
	fl.StringVar(&opts.InputJSON, "input-json", "", "input object as `JSON`, @FILE, or - for stdin")
	fl.StringVar(&timeout, "timeout", "", "stop the script after `DURATION` (30s, 2m, or milliseconds)")
	fl.StringVar(&opts.Entry, "entry", "", "run the script `REL` of the skill instead of its entrypoint")
	fl.StringVar(&opts.Workdir, "workdir", "", "working folder `DIR` (default: a fresh temporary folder)")
	fl.StringArrayVar(&opts.Allow, "allow", nil, "grant the `PERMISSION` the skill declares: {network} (repeatable)")
	fl.StringArrayVar(&opts.Env, "env", nil, "pass the variable `NAME` when the skill declares env:NAME (repeatable)")
	fl.StringVar(&opts.Isolation, "isolation", "", "the isolation `TIER`: {auto|bwrap|namespaces|landlock|seatbelt|none}")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "confirm dangerous skills and ask rules without a prompt")
	fl.BoolVar(&opts.AllowMissing, "allow-missing", false, "direct mode: leave placeholders without a value as written")
	_ = cmd.RegisterFlagCompletionFunc("mode", fixedCompletion(skill.ModeAuto, skill.ModeSandbox, skill.ModeDirect))
	_ = cmd.RegisterFlagCompletionFunc("isolation", fixedCompletion(run.Tiers...))
	_ = cmd.RegisterFlagCompletionFunc("allow", fixedCompletion(run.PermNetwork))
	_ = cmd.RegisterFlagCompletionFunc("entry", completeSkillFiles(f))
	_ = cmd.MarkFlagDirname("workdir")
	return cmd
}

func runRun(ctx context.Context, opts *runOptions) error {
	s, err := opts.Resolve(ctx, opts.Name)
	if err != nil {
		return err
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	input, err := run.BuildInput(opts.InputJSON, opts.Inputs, opts.IO.In)
	if err != nil {
		return runHint(err)
	}
	ro := &run.Options{
		Skill: s, Config: cfg, Mode: opts.Mode, Input: input, Args: opts.Args, Timeout: opts.Timeout,
		Entry: opts.Entry, Workdir: opts.Workdir, AllowNetwork: len(opts.Allow) > 0, Env: opts.Env,
		Isolation: opts.Isolation, Yes: opts.Yes, AllowMissing: opts.AllowMissing,
		Capture: opts.JSON, Stdout: opts.IO.Out, Stderr: opts.IO.ErrOut, Terminal: opts.IO.IsStdoutTTY(),
		Getenv: opts.Getenv, Cwd: opts.Cwd, Now: opts.Now, StateDir: opts.StateDir, Self: opts.Self,
		ExitStatus: ExitCodeOf,
	}
	if !opts.Quiet {
		ro.Notes = func(n run.Note) { fmt.Fprintln(opts.IO.ErrOut, safetext.Line(runNote(n))) }
	}
	if opts.IO.CanPrompt() {
		ro.Confirm = confirmer(opts.IO.In, opts.IO.ErrOut)
	}
	rep, err := ro.Run(ctx)
	if opts.JSON && rep != nil {
		if doc := rep.JSON(); doc != nil {
			if werr := writeJSON(opts.IO.Out, doc); werr != nil && err == nil {
				err = werr
			}
		}
	}
	return runHint(err)
}

// runNote says what run tells the user while it works, naming the flags
// that change it.
func runNote(n run.Note) string {
	name := func() string { return n.Names[0] }
	switch n.Kind {
	case run.NoteIsolation:
		iso := n.Isolation
		if iso.Unsandboxed {
			return fmt.Sprintf("run: %s: UNSANDBOXED (--isolation none): the script runs with your user's full access", n.Skill)
		}
		extra := "network " + iso.Network
		if iso.Landlock > 0 {
			extra += fmt.Sprintf(", landlock v%d", iso.Landlock)
		}
		if len(iso.Skipped) > 0 {
			var names []string
			for _, s := range iso.Skipped {
				names = append(names, strings.SplitN(s, ":", 2)[0])
			}
			extra += "; unavailable: " + strings.Join(names, ", ")
		}
		return fmt.Sprintf("run: %s: isolation %s (%s)", n.Skill, iso.Tier, extra)
	case run.NoteNetworkNotGranted:
		return fmt.Sprintf("note: %s declares network access; it runs without it (pass --allow network to grant it)", n.Skill)
	case run.NoteNetworkNotDeclared:
		return fmt.Sprintf("note: --allow network has no effect: %s does not declare the network permission", n.Skill)
	case run.NoteEnvReserved:
		return fmt.Sprintf("note: --env %s ignored: skillctl sets %s itself", name(), name())
	case run.NoteEnvNotDeclared:
		return fmt.Sprintf("note: --env %s ignored: %s does not declare env:%s", name(), n.Skill, name())
	case run.NoteEnvUnset:
		return fmt.Sprintf("note: --env %s: %s is not set in skillctl's environment", name(), name())
	case run.NoteEnvNotGranted:
		return fmt.Sprintf("note: %s declares env:%s; not passed (grant with --env %s)", n.Skill,
			strings.Join(n.Names, ", env:"), strings.Join(n.Names, " --env "))
	case run.NoteRecordFailed:
		return fmt.Sprintf("warning: could not write the run record: %v", n.Err)
	case run.NoteWorkdirKept:
		return fmt.Sprintf("run: %s: the script left files in %s (kept; remove it when done)", n.Skill, name())
	}
	return fmt.Sprintf("note: %s: %v", n.Skill, n.Err)
}

// runHint says which flag gets past a run error.
func runHint(err error) error {
	var (
		ie *run.InputError
		me *run.MissingInputError
		de *run.DeniedError
		se *run.SandboxError
	)
	switch {
	case errors.As(err, &ie):
		flag := map[run.InputKind]string{run.InputJSON: "--input-json", run.InputPair: "--input " + ie.Arg,
			run.InputMode: "--mode", run.InputWorkdir: "--workdir " + ie.Arg, run.InputTimeout: "--timeout"}[ie.Kind]
		if ie.Kind == run.InputJSON && (ie.Arg == "-" || strings.HasPrefix(ie.Arg, "@")) {
			flag += " " + ie.Arg
		}
		return &FlagError{Err: fmt.Errorf("%s: %s", flag, ie.Msg)}
	case errors.As(err, &me):
		return &FlagError{Err: errors.New(me.Text(" (pass --input NAME=VALUE or --input-json, or --allow-missing to leave them as written)"))}
	case errors.As(err, &de) && de.NeedsYes:
		return fmt.Errorf("%w: pass --yes to run it without confirming", err)
	case errors.Is(err, run.ErrNoEntrypoint):
		return fmt.Errorf("%w, or pass --entry REL", err)
	case errors.As(err, &se) && se.Requested != run.TierNone:
		return fmt.Errorf("%w; install bubblewrap (bwrap), or pass --isolation none to run the script UNSANDBOXED", err)
	}
	return err
}

// confirmer asks a yes/no question on the terminal; anything but y/yes is no.
func confirmer(in io.Reader, out io.Writer) func(string) (bool, error) {
	return func(prompt string) (bool, error) {
		fmt.Fprintf(out, "%s [y/N] ", strings.TrimSpace(prompt))
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(out)
			return false, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	}
}
