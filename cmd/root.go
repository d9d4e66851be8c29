package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/catalog"
	"github.com/skillctl/skillctl/pkg/config"
	"github.com/skillctl/skillctl/pkg/skill"
)

// GlobalOptions are the flags every command takes (SPEC §4).
type GlobalOptions struct {
	JSON       bool
	Color      string
	Quiet      bool
	Dir        string
	Paths      []string
	Agents     []string
	ConfigFile string
}

// Factory hands commands what they need: streams, environment, clock,
// global options, and lazily loaded configuration.
type Factory struct {
	IO     *iostreams.IOStreams
	Getenv func(string) string
	Now    func() time.Time
	Global GlobalOptions

	cfgOnce sync.Once
	cfg     *config.Config
	cfgErr  error
}

// NewFactory builds a factory over streams and an environment lookup.
func NewFactory(ios *iostreams.IOStreams, getenv func(string) string) *Factory {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &Factory{IO: ios, Getenv: getenv, Now: time.Now}
}

// Cwd is the folder skillctl acts in (-C DIR, else the process's).
func (f *Factory) Cwd() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if f.Global.Dir == "" {
		return wd, nil
	}
	d := f.Global.Dir
	if !filepath.IsAbs(d) {
		d = filepath.Join(wd, d)
	}
	fi, err := os.Stat(d)
	if err != nil || !fi.IsDir() {
		return "", skill.Mark(fmt.Errorf("-C %s: not a folder", f.Global.Dir), skill.ErrNotFound)
	}
	return filepath.Clean(d), nil
}

// Home is the user's home folder ($HOME, else the OS's idea of it).
func (f *Factory) Home() string {
	if h := f.Getenv("HOME"); h != "" {
		return h
	}
	if h := f.Getenv("USERPROFILE"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Config loads and merges the configuration files once.
func (f *Factory) Config() (*config.Config, error) {
	f.cfgOnce.Do(func() {
		cwd, err := f.Cwd()
		if err != nil {
			f.cfgErr = err
			return
		}
		explicit := f.Global.ConfigFile
		if explicit != "" && !filepath.IsAbs(explicit) {
			explicit = filepath.Join(cwd, explicit)
		}
		files := config.Locate(f.Getenv("XDG_CONFIG_HOME"), f.Home(), cwd, explicit)
		f.cfg, f.cfgErr = config.Load(files...)
		if f.cfg != nil {
			for _, w := range f.cfg.Warnings {
				f.Warnf("%s", w)
			}
		}
	})
	return f.cfg, f.cfgErr
}

// Agents is the agent folder sets in force: --agent, else config agents:, else the default.
func (f *Factory) Agents() ([]string, error) {
	if len(f.Global.Agents) > 0 {
		return f.Global.Agents, nil
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	if len(cfg.Agents) > 0 {
		return cfg.Agents, nil
	}
	return agents.DefaultLoad, nil
}

// DiscoverOptions builds discovery options from the flags, config and environment.
func (f *Factory) DiscoverOptions() (catalog.Options, error) {
	cfg, err := f.Config()
	if err != nil {
		return catalog.Options{}, err
	}
	cwd, err := f.Cwd()
	if err != nil {
		return catalog.Options{}, err
	}
	agents, err := f.Agents()
	if err != nil {
		return catalog.Options{}, err
	}
	return catalog.Options{
		Home: f.Home(), Cwd: cwd, Getenv: f.Getenv, Agents: agents,
		ConfigPaths: cfg.Paths, Paths: f.Global.Paths, DefaultMode: cfg.Run.DefaultMode,
	}, nil
}

// Discover finds every skill. Skills that cannot be loaded are warned about
// on stderr unless warn is false.
func (f *Factory) Discover(ctx context.Context, dropBody, warn bool) (*catalog.Catalog, error) {
	o, err := f.DiscoverOptions()
	if err != nil {
		return nil, err
	}
	o.DropBody = dropBody
	cat, err := catalog.Discover(ctx, o)
	if err != nil {
		return nil, err
	}
	if warn {
		f.WarnBroken(cat)
	}
	return cat, nil
}

// WarnBroken prints one warning line per skill that could not be loaded.
func (f *Factory) WarnBroken(cat *catalog.Catalog) {
	for _, p := range cat.Problems() {
		warnSkipped(f.IO.ErrOut, p.Path, p.Reason)
	}
	for _, w := range cat.Warnings {
		f.Warnf("%s", w)
	}
}

// warnSkipped says that a skill (or a link to one) was left out, and why
// (SPEC §3: nothing is dropped silently).
func warnSkipped(w io.Writer, path, reason string) {
	fmt.Fprintf(w, "warning: skipped %s: %s\n", safetext.Line(path), safetext.Line(reason))
}

// Warnf prints a warning on stderr unless --quiet.
func (f *Factory) Warnf(format string, a ...any) {
	if f.Global.Quiet {
		return
	}
	fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", safetext.Line(fmt.Sprintf(format, a...)))
}

// commandBuilders are registered by each command's file.
var (
	buildersMu      sync.Mutex
	commandBuilders []func(*Factory) *cobra.Command
)

func register(b func(*Factory) *cobra.Command) {
	buildersMu.Lock()
	defer buildersMu.Unlock()
	commandBuilders = append(commandBuilders, b)
}

// NewRootCmd builds the skillctl command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "skillctl <command> [flags]",
		Short: "Find, validate, install, index and run Agent Skills",
		Long: `skillctl works with Agent Skills: folders holding a SKILL.md (YAML frontmatter
and Markdown instructions) with optional scripts/, references/ and assets/,
as read by Claude Code, Codex, OpenCode and other agents.

Authors scaffold, lint, inspect and package skills; CI lints them; operators
install skill archives and build catalogs for agents; scripts find skills
and run them: their scripts in a sandbox, their instructions rendered.

Skills are found in the user, project, env, path and plugin folders of the
agents in use (see 'skillctl list --help' and 'skillctl help environment'); every
skill that cannot be loaded is reported, never dropped. Results go to stdout
and messages to stderr; in a pipe there is no color, no table header, no
prompt and no progress.`,
		Annotations: rootExitStatus(),
		Example: `  skillctl list
  skillctl init my-skill && skillctl validate my-skill
  skillctl pack my-skill && skillctl install my-skill.skill
  skillctl run my-skill --input name=Ada
  skillctl index --format markdown --write AGENTS.md`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       Version(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return f.applyGlobal()
		},
	}
	root.SetVersionTemplate("skillctl {{.Version}}\n")
	pf := root.PersistentFlags()
	pf.BoolVar(&f.Global.JSON, "json", false, "print one JSON document on stdout")
	pf.StringVar(&f.Global.Color, "color", "auto", "`WHEN` to use color: {auto|always|never}")
	pf.BoolVarP(&f.Global.Quiet, "quiet", "q", false, "print less on stderr")
	pf.StringVarP(&f.Global.Dir, "chdir", "C", "", "act as if started in `DIR`")
	pf.StringArrayVar(&f.Global.Paths, "path", nil, "also look for skills in `DIR` (repeatable)")
	pf.StringArrayVar(&f.Global.Agents, "agent", nil, "use the folders of `AGENT`: {claude|agents|codex|opencode} (repeatable)")
	pf.StringVar(&f.Global.ConfigFile, "config", "", "read configuration from `FILE` too")
	_ = root.RegisterFlagCompletionFunc("color", fixedCompletion("auto", "always", "never"))
	_ = root.RegisterFlagCompletionFunc("agent", fixedCompletion(agents.Names()...))
	_ = root.MarkPersistentFlagDirname("chdir")
	_ = root.MarkPersistentFlagDirname("path")
	_ = root.MarkPersistentFlagFilename("config", "yaml", "yml")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{Err: flagError(c, err)} })

	buildersMu.Lock()
	builders := append([]func(*Factory) *cobra.Command(nil), commandBuilders...)
	buildersMu.Unlock()
	var cmds []*cobra.Command
	for _, b := range builders {
		cmds = append(cmds, b(f))
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	root.AddCommand(cmds...)
	root.CompletionOptions.DisableDefaultCmd = true // completion.go has skillctl's own
	setupHelp(root)
	for _, c := range root.Commands() {
		if c.Args != nil {
			c.Args = wrapArgs(c.Args)
		}
	}
	return root
}

func (f *Factory) applyGlobal() error {
	switch f.Global.Color {
	case iostreams.ColorAuto, iostreams.ColorAlways, iostreams.ColorNever:
		f.IO.ColorPolicy = f.Global.Color
	default:
		return FlagErrorf("--color must be auto, always or never, not %q", f.Global.Color)
	}
	for _, a := range f.Global.Agents {
		for _, one := range strings.Split(a, ",") {
			if _, ok := agents.Lookup(one); !ok {
				return FlagErrorf("--agent must be one of %s, not %q", strings.Join(agents.Names(), ", "), one)
			}
		}
	}
	var agents []string
	for _, a := range f.Global.Agents {
		agents = append(agents, strings.Split(a, ",")...)
	}
	f.Global.Agents = agents
	f.IO.Quiet = f.Global.Quiet
	return nil
}

func wrapArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &FlagError{Err: argError(cmd, args, err)}
		}
		return nil
	}
}

func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
