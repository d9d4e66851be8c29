// Package run executes skills: direct mode renders a skill's body with its
// placeholders filled; sandbox mode runs the skill's entrypoint script in the
// strongest isolation the machine offers, with a timeout, output caps, an
// empty environment and a record of every run.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/config"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Defaults of SPEC §7.
const (
	DefaultTimeout = config.DefaultTimeout
	// KillGrace is the time between SIGTERM and SIGKILL at the timeout.
	KillGrace = 2 * time.Second
	// OutputCap is the most of each stream kept for --json and the record.
	OutputCap = 1 << 20
	// InlineInputMax is the largest input also passed in INPUT_JSON.
	InlineInputMax = 64 << 10
)

// Options describe one run. Zero values mean "use the skill's, then the
// config's, then the built-in default".
type Options struct {
	Skill  *skill.Skill
	Config *config.Config

	Mode         string         // --mode: sandbox or direct
	Input        map[string]any // built by BuildInput
	Args         []string       // after --
	Timeout      time.Duration  // --timeout
	Entry        string         // --entry
	Workdir      string         // --workdir
	AllowNetwork bool           // --allow network
	Env          []string       // --env NAME grants
	Isolation    string         // --isolation
	Yes          bool           // --yes
	AllowMissing bool           // --allow-missing (direct mode)

	// Capture collects the script's output for a result document instead of
	// streaming it to Stdout and Stderr.
	Capture bool
	Stdout  io.Writer
	// Terminal says Stdout is a terminal: direct-mode text is printed with
	// its control characters made visible (SPEC §15). A script's own
	// output streams as it is.
	Terminal bool
	Stderr   io.Writer
	// Notes receives what run tells the user while it works (isolation
	// achieved, grants); nil is quiet.
	Notes func(Note)
	// ExitStatus maps a failed run's error to the status recorded in the
	// result and the run record (the caller's exit codes); nil records the
	// script's own status, else 1.
	ExitStatus func(error) int
	// Confirm asks a yes/no question on a terminal; nil when there is none.
	Confirm func(prompt string) (bool, error)

	// Getenv reads skillctl's own environment (for --env grants).
	Getenv func(string) string
	Cwd    string
	Now    func() time.Time
	// StateDir holds runs.jsonl; empty keeps no record.
	StateDir string
	// Self is the skillctl executable, re-executed as the sandbox helper.
	Self string
	// TempDir is where fresh workdirs and private temp folders go (default os.TempDir()).
	TempDir string
}

// Report is what a run produced: one of the result documents.
type Report struct {
	Mode    string
	Direct  *DirectResult
	Sandbox *SandboxResult
	// Failure is set when the skill could not be started.
	Failure *SkillError
	// Record is the run record that was appended (nil without StateDir).
	Record *Record
}

// JSON returns the document printed by --json.
func (r *Report) JSON() any {
	switch {
	case r.Failure != nil:
		return r.Failure
	case r.Direct != nil:
		return r.Direct
	case r.Sandbox != nil:
		return r.Sandbox
	}
	return nil
}

// DirectResult is the --json document of direct mode.
type DirectResult struct {
	Mode     string         `json:"mode"`
	Content  string         `json:"content"`
	Metadata DirectMetadata `json:"metadata"`
}

// DirectMetadata tells where a direct-mode content came from.
type DirectMetadata struct {
	SkillName   string `json:"skillName"`
	SourcePath  string `json:"sourcePath"`
	GeneratedAt string `json:"generatedAt"`
}

// SandboxResult is the --json document of sandbox mode.
type SandboxResult struct {
	Status    string    `json:"status"` // success, error, timeout
	Output    string    `json:"output"` // stdout, at most 1 MiB
	Error     string    `json:"error"`  // stderr, at most 1 MiB
	Duration  int64     `json:"duration"`
	ExitCode  int       `json:"exitCode"`
	Files     []string  `json:"files"`
	Isolation Isolation `json:"isolation"`
	Workdir   *string   `json:"workdir"` // null when the fresh workdir was removed
	Truncated bool      `json:"truncated"`
}

// SkillError is the --json document of a skill that could not be started.
type SkillError struct {
	Name    string            `json:"name"`
	Message string            `json:"message"`
	Details SkillErrorDetails `json:"details"`
}

// SkillErrorDetails says which skill, in which mode, and why.
type SkillErrorDetails struct {
	SkillName string `json:"skillName"`
	Mode      string `json:"mode"`
	Cause     string `json:"cause"`
	Duration  int64  `json:"duration"`
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// exitStatus is the status a failed run records (ExitStatus, else the
// script's own code, else 1).
func (o *Options) exitStatus(err error) int {
	if o.ExitStatus != nil {
		return o.ExitStatus(err)
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return 1
}

func (o *Options) cfg() *config.Config {
	if o.Config != nil {
		return o.Config
	}
	return &config.Config{}
}

// ResolveMode is --mode, else the skill's mode, else config
// run.defaultMode, else auto (SPEC §7): auto — also as --mode or as the
// configured default — is sandbox when the skill has an entrypoint and
// direct otherwise.
func (o *Options) ResolveMode() string {
	switch o.Mode {
	case skill.ModeSandbox, skill.ModeDirect:
		return o.Mode
	case skill.ModeAuto:
		if o.Skill.Exec.Entrypoint != "" || o.Entry != "" || o.Skill.ProbeEntrypoint() != "" {
			return skill.ModeSandbox
		}
		return skill.ModeDirect
	}
	if o.Entry != "" && o.Skill.Exec.Mode == "" && o.cfg().Run.DefaultMode != skill.ModeDirect {
		return skill.ModeSandbox // --entry names a script to run
	}
	return o.Skill.RunMode(o.cfg().Run.DefaultMode)
}

// ResolveTimeout is --timeout, else the skill's timeout, else config run.timeout, else 30 s.
func (o *Options) ResolveTimeout() time.Duration {
	switch {
	case o.Timeout > 0:
		return o.Timeout
	case o.Skill.Exec.TimeoutMS > 0:
		return time.Duration(o.Skill.Exec.TimeoutMS) * time.Millisecond
	case o.cfg().Run.Timeout > 0:
		return o.cfg().Run.Timeout
	}
	return DefaultTimeout
}

// ResolveIsolation is --isolation, else config run.isolation, else auto.
func (o *Options) ResolveIsolation() string {
	switch {
	case o.Isolation != "":
		return o.Isolation
	case o.cfg().Run.Isolation != "":
		return o.cfg().Run.Isolation
	}
	return TierAuto
}

// Run runs the skill. The returned report holds the result document (also
// on failure); the error is one of the typed errors of errors.go (or the
// context's when cancelled), which the caller maps to an exit status.
func (o *Options) Run(ctx context.Context) (*Report, error) {
	if o.Skill == nil {
		return nil, errors.New("run: no skill")
	}
	s := o.Skill
	start := o.now()
	mode := o.ResolveMode()
	rep := &Report{Mode: mode}
	rec := newRecord(s, mode, o.Input, start)

	finish := func(err error) (*Report, error) {
		end := o.now()
		if err != nil {
			code := o.exitStatus(err)
			if rep.Sandbox != nil {
				rep.Sandbox.ExitCode = code
			}
			rec.fail(end, err, code, rep)
			if rep.Direct == nil && rep.Sandbox == nil {
				rep.Failure = &SkillError{Name: "SkillError", Message: err.Error(), Details: SkillErrorDetails{
					SkillName: s.Name, Mode: mode, Cause: causeOf(err), Duration: end.Sub(start).Milliseconds()}}
			}
		} else {
			rec.complete(end, rep)
		}
		if o.StateDir != "" {
			if werr := AppendRecord(o.StateDir, rec); werr != nil {
				o.note(Note{Kind: NoteRecordFailed, Err: werr})
			} else {
				rep.Record = rec
			}
		}
		return rep, err
	}

	if mode != skill.ModeDirect && mode != skill.ModeSandbox {
		return finish(&InputError{Kind: InputMode, Arg: mode, Msg: fmt.Sprintf("must be sandbox or direct, not %q", mode)})
	}
	if mode == skill.ModeSandbox && o.Timeout == 0 && s.Exec.Timeout != "" {
		if _, terr := skill.ParseTimeoutMS(s.Exec.Timeout); terr != nil {
			return finish(&StartError{Skill: s.Name, Err: fmt.Errorf("%v (in %s); fix the skill or pass --timeout", terr, s.File)})
		}
	}
	if o.Timeout != 0 {
		if terr := skill.CheckTimeout(o.Timeout); terr != nil {
			return finish(&InputError{Kind: InputTimeout, Arg: o.Timeout.String(), Msg: terr.Error()})
		}
	}
	if err := o.authorize(mode); err != nil {
		return finish(err)
	}
	rec.running(o.now())
	if mode == skill.ModeSandbox && o.StateDir != "" {
		// A first line before the script starts: a run whose skillctl is
		// killed (by the script, in tier none) still leaves its record.
		if werr := AppendRecord(o.StateDir, rec); werr != nil {
			o.note(Note{Kind: NoteRecordFailed, Err: werr})
		}
	}
	var err error
	if mode == skill.ModeDirect {
		rep.Direct, err = o.runDirect()
	} else {
		rep.Sandbox, err = o.runSandbox(ctx)
	}
	return finish(err)
}

// authorize applies enableDirectMode, permission rules, and dangerous/confirm.
func (o *Options) authorize(mode string) error {
	s, cfg := o.Skill, o.cfg()
	if mode == skill.ModeDirect && !cfg.DirectModeEnabled() {
		return &DeniedError{Skill: s.Name, Reason: "direct mode is disabled by the configuration (run.enableDirectMode: false)" + cfgFiles(cfg)}
	}
	action, rule := cfg.Permission(s.Name, s.ID)
	where := ""
	if rule != nil {
		where = fmt.Sprintf("permission rule %q: %s (%s:%d)", rule.Pattern, rule.Action, rule.File, rule.Line)
	}
	var ask []string
	switch action {
	case config.Deny:
		return &DeniedError{Skill: s.Name, Reason: "denied by " + where}
	case config.Allow:
		return nil // an operator's explicit allow also covers dangerous skills
	case config.Ask:
		ask = append(ask, "the "+where+" asks for confirmation")
	}
	if s.Exec.Dangerous && (cfg.Run.ConfirmDangerous == nil || *cfg.Run.ConfirmDangerous) {
		ask = append(ask, "the skill is marked dangerous")
	}
	if len(ask) == 0 || o.Yes {
		return nil
	}
	// skillctl's own words first; the skill's confirm text only quoted
	// after them, on one line, with its control characters made visible.
	prompt := fmt.Sprintf("Run %s (%s)?", safetext.Line(s.Name), strings.Join(ask, "; "))
	if c := strings.TrimSpace(s.Exec.Confirm); c != "" {
		prompt += "\n  The skill's own words: \u201c" + safetext.Line(c) + "\u201d\n"
	}
	if o.Confirm == nil {
		return &DeniedError{Skill: s.Name, Reason: strings.Join(ask, "; ") + "; there is no terminal to confirm on", NeedsYes: true}
	}
	ok, err := o.Confirm(prompt)
	if err != nil {
		return &DeniedError{Skill: s.Name, Reason: "confirmation failed: " + err.Error()}
	}
	if !ok {
		return &DeniedError{Skill: s.Name, Reason: "not confirmed"}
	}
	return nil
}

func cfgFiles(c *config.Config) string {
	if len(c.Files) == 0 {
		return ""
	}
	return " in " + strings.Join(c.Files, ", ")
}

func (o *Options) runDirect() (*DirectResult, error) {
	s := o.Skill
	now := o.now()
	cwd := o.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	body := strings.TrimLeft(s.Body, "\r\n")
	out, err := Render(body, RenderContext{Input: o.Input, Args: o.Args, Cwd: cwd, SkillDir: s.Dir,
		SkillName: s.Name, Now: now, AllowMissing: o.AllowMissing})
	if err != nil {
		return nil, err
	}
	res := &DirectResult{Mode: skill.ModeDirect, Content: out, Metadata: DirectMetadata{
		SkillName: s.Name, SourcePath: s.File, GeneratedAt: now.UTC().Format(time.RFC3339)}}
	if !o.Capture && o.Stdout != nil {
		text := out
		if o.Terminal {
			text = safetext.Text(out)
		}
		if _, err := io.WriteString(o.Stdout, text); err != nil {
			return res, err
		}
	}
	return res, nil
}
