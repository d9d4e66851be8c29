package run

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Permissions a skill can declare.
const (
	PermNetwork   = "network"
	PermEnvPrefix = "env:"
)

// reservedEnv are the variables skillctl sets; grants cannot replace them.
var reservedEnv = map[string]bool{"PATH": true, "LANG": true, "HOME": true, "TMPDIR": true, "SKILL_NAME": true,
	"SKILL_PATH": true, "TIMEOUT": true, "SKILL_WORKDIR": true, "SKILL_INPUT_FILE": true, "INPUT_JSON": true,
	"SKILL_SANDBOX": true, "SKILL_NETWORK": true}

// maxListedFiles bounds the files reported from the workdir.
const maxListedFiles = 10000

func (o *Options) runSandbox(ctx context.Context) (*SandboxResult, error) {
	s := o.Skill
	skillDir, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		return nil, &StartError{Skill: s.Name, Err: err}
	}
	if skillDir, err = filepath.Abs(skillDir); err != nil {
		return nil, &StartError{Skill: s.Name, Err: err}
	}
	ep, err := ResolveEntrypoint(s, skillDir, o.Entry)
	if err != nil {
		return nil, &StartError{Skill: s.Name, Err: err}
	}
	network, grants := o.grants()
	timeout := o.ResolveTimeout()

	base := o.TempDir
	if base == "" {
		base = os.TempDir()
	}
	runDir, err := os.MkdirTemp(base, "skillctl-run-")
	if err != nil {
		return nil, fmt.Errorf("run %s: private folder: %w", s.Name, err)
	}
	defer os.RemoveAll(runDir)
	if runDir, err = filepath.EvalSymlinks(runDir); err != nil {
		return nil, err
	}
	tmp := filepath.Join(runDir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	input := o.Input
	if input == nil {
		input = map[string]any{}
	}
	inputJSON := compactJSON(input)
	inputFile := filepath.Join(runDir, "input.json")
	if err := os.WriteFile(inputFile, []byte(inputJSON), 0o600); err != nil {
		return nil, err
	}

	wd, err := o.prepareWorkdir(base, skillDir)
	if err != nil {
		return nil, err
	}

	env := []string{
		"PATH=" + SandboxPath(),
		"LANG=C.UTF-8",
		"HOME=" + wd.path,
		"TMPDIR=" + tmp,
		"SKILL_NAME=" + s.Name,
		"SKILL_PATH=" + skillDir,
		"TIMEOUT=" + strconv.FormatInt(timeout.Milliseconds(), 10),
		"SKILL_WORKDIR=" + wd.path,
		"SKILL_INPUT_FILE=" + inputFile,
	}
	if len(inputJSON) <= InlineInputMax {
		env = append(env, "INPUT_JSON="+inputJSON)
	}
	if network {
		env = append(env, "SKILL_NETWORK=host")
	} else {
		env = append(env, "SKILL_NETWORK=none")
	}
	env = append(env, grants...)

	p := &plan{skillName: s.Name, skillDir: skillDir, workdir: wd.path, tmp: tmp, inputFile: inputFile,
		argv: append(append([]string(nil), ep.Argv...), o.Args...), env: env, network: network, self: o.Self}

	requested := o.ResolveIsolation()
	tiers, err := tiersFor(requested)
	if err != nil {
		wd.cleanup()
		return nil, &SandboxError{Skill: s.Name, Requested: requested, Reasons: []string{err.Error()}}
	}
	var skipped []string
	for _, t := range tiers {
		if err := t.check(p); err != nil {
			skipped = append(skipped, t.name()+": "+err.Error())
			continue
		}
		res, setupErr, runErr := o.attempt(ctx, t, p, timeout, requested, skipped)
		if setupErr != nil {
			skipped = append(skipped, t.name()+": "+setupErr.Error())
			continue
		}
		if res != nil {
			res.Files, res.Workdir = wd.finish()
			if wd.fresh && res.Workdir != nil {
				o.note(Note{Kind: NoteWorkdirKept, Names: []string{*res.Workdir}})
			}
		} else {
			wd.cleanup()
		}
		return res, runErr
	}
	wd.cleanup()
	return nil, &SandboxError{Skill: s.Name, Requested: requested, Reasons: skipped}
}

// grants works out the network and environment the script gets: a
// permission counts when the skill declares it and the user grants it.
func (o *Options) grants() (network bool, env []string) {
	s := o.Skill
	declaredNet := false
	declaredEnv := map[string]bool{}
	for _, p := range s.Exec.Permissions {
		switch {
		case p == PermNetwork:
			declaredNet = true
		case strings.HasPrefix(p, PermEnvPrefix):
			declaredEnv[strings.TrimPrefix(p, PermEnvPrefix)] = true
		}
	}
	switch {
	case declaredNet && o.AllowNetwork:
		network = true
	case declaredNet:
		o.note(Note{Kind: NoteNetworkNotGranted})
	case o.AllowNetwork:
		o.note(Note{Kind: NoteNetworkNotDeclared})
	}
	granted := map[string]bool{}
	names := append([]string(nil), o.Env...)
	sort.Strings(names)
	for _, name := range names {
		if granted[name] {
			continue
		}
		granted[name] = true
		switch {
		case reservedEnv[name]:
			o.note(Note{Kind: NoteEnvReserved, Names: []string{name}})
		case !declaredEnv[name]:
			o.note(Note{Kind: NoteEnvNotDeclared, Names: []string{name}})
		default:
			if v := o.getenv(name); v != "" {
				env = append(env, name+"="+v)
			} else {
				o.note(Note{Kind: NoteEnvUnset, Names: []string{name}})
			}
		}
	}
	var missing []string
	for name := range declaredEnv {
		if !granted[name] && !reservedEnv[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		o.note(Note{Kind: NoteEnvNotGranted, Names: missing})
	}
	return network, env
}

// workdir is the script's working folder.
type workdir struct {
	path    string
	fresh   bool                 // a temporary folder created for this run
	created bool                 // --workdir did not exist before the run
	before  map[string]fileStamp // what a given workdir held before the run
}

type fileStamp struct {
	size int64
	mod  time.Time
}

func (o *Options) prepareWorkdir(base, skillDir string) (*workdir, error) {
	if o.Workdir == "" {
		d, err := os.MkdirTemp(base, "skillctl-work-")
		if err != nil {
			return nil, fmt.Errorf("run %s: workdir: %w", o.Skill.Name, err)
		}
		d, err = filepath.EvalSymlinks(d)
		if err != nil {
			return nil, err
		}
		return &workdir{path: d, fresh: true}, nil
	}
	d := o.Workdir
	if !filepath.IsAbs(d) {
		d = filepath.Join(o.Cwd, d)
	}
	_, statErr := os.Stat(d)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, &InputError{Kind: InputWorkdir, Arg: o.Workdir, Msg: err.Error()}
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return nil, &InputError{Kind: InputWorkdir, Arg: o.Workdir, Msg: err.Error()}
	}
	if skill.Within(skillDir, real) || skill.Within(real, skillDir) {
		if errors.Is(statErr, fs.ErrNotExist) {
			os.Remove(d)
		}
		return nil, &InputError{Kind: InputWorkdir, Arg: o.Workdir,
			Msg: "the workdir and the skill folder " + skillDir + " must not contain one another (the skill folder stays read-only)"}
	}
	wd := &workdir{path: real, before: map[string]fileStamp{}, created: errors.Is(statErr, fs.ErrNotExist)}
	walkFiles(real, func(rel string, fi fs.FileInfo) { wd.before[rel] = fileStamp{fi.Size(), fi.ModTime()} })
	return wd, nil
}

// finish lists the files the script wrote and removes a fresh workdir that stayed empty.
func (w *workdir) finish() ([]string, *string) {
	files := []string{}
	walkFiles(w.path, func(rel string, fi fs.FileInfo) {
		if old, ok := w.before[rel]; ok && old.size == fi.Size() && old.mod.Equal(fi.ModTime()) {
			return
		}
		if len(files) < maxListedFiles {
			files = append(files, rel)
		}
	})
	sort.Strings(files)
	if w.fresh {
		if ents, err := os.ReadDir(w.path); err == nil && len(ents) == 0 {
			os.Remove(w.path)
			return files, nil
		}
	}
	p := w.path
	return files, &p
}

// cleanup undoes the workdir of a run that did not start: a fresh one is
// removed, and so is a --workdir folder this run created (while still empty).
func (w *workdir) cleanup() {
	switch {
	case w.fresh:
		os.RemoveAll(w.path)
	case w.created:
		os.Remove(w.path)
	}
}

// walkFiles calls fn for every file (not folder) below dir, with its slash path.
func walkFiles(dir string, fn func(rel string, fi fs.FileInfo)) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil
		}
		fn(filepath.ToSlash(rel), fi)
		return nil
	})
}

// helperStatus is what the sandbox helper reports on its status pipe before
// the script runs: ok, or the stage that failed and why.
type helperStatus struct {
	OK       bool   `json:"ok,omitempty"`
	Stage    string `json:"stage,omitempty"` // setup or start
	Error    string `json:"error,omitempty"`
	Landlock int    `json:"landlock,omitempty"`
	Proc     string `json:"proc,omitempty"` // how /proc was set up
	// Group is the script's process group (the supervisor's pid namespace).
	Group int `json:"group,omitempty"`
	// Ready: the second stage is confined and waits for the go-ahead.
	Ready bool `json:"ready,omitempty"`
	// Done is the supervisor's last word: the script exited and Left of
	// its processes could not be stopped (0: verified, nothing is left).
	Done bool `json:"done,omitempty"`
	Left int  `json:"left,omitempty"`
}

// attempt runs the script under one tier. A setup error means nothing of the
// skill ran and the next tier may be tried.
func (o *Options) attempt(ctx context.Context, t tier, p *plan, timeout time.Duration, requested string, skipped []string) (res *SandboxResult, setupErr, runErr error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	l, err := t.prepare(tctx, p)
	if err != nil {
		return nil, err, nil
	}
	l.iso.Requested = requested
	l.iso.Skipped = skipped
	g := &gate{}
	var passOut, passErr io.Writer
	if !o.Capture {
		passOut, passErr = o.Stdout, o.Stderr
	}
	stdout, stderr := newStream(g, passOut), newStream(g, passErr)
	stdin, err := os.Open(p.inputFile)
	if err != nil {
		return nil, nil, err
	}
	defer stdin.Close()
	l.cmd.Stdin, l.cmd.Stdout, l.cmd.Stderr = stdin, stdout, stderr
	ctl := &control{l: l}
	l.cmd.Cancel = ctl.cancel
	l.cmd.WaitDelay = KillGrace + time.Second

	if l.status == nil {
		o.note(Note{Kind: NoteIsolation, Isolation: l.iso})
		g.release()
	}
	started := time.Now()
	if err := l.cmd.Start(); err != nil {
		if l.afterStart != nil {
			l.afterStart()
		}
		if l.status != nil {
			l.status.Close()
		}
		return nil, fmt.Errorf("cannot start: %w", err), nil
	}
	if l.afterStart != nil {
		l.afterStart()
	}
	var status *bufio.Reader
	if l.status != nil {
		defer l.status.Close()
		status = bufio.NewReader(io.LimitReader(l.status, 64<<10))
		st := readStatus(status)
		switch {
		case st.OK:
			if st.Landlock > 0 {
				l.iso.Landlock = st.Landlock
			}
			if st.Proc != "" {
				l.iso.Processes += ", /proc " + st.Proc
			}
			if l.hostGroup {
				l.group.Store(int64(st.Group))
			}
			o.note(Note{Kind: NoteIsolation, Isolation: l.iso})
			g.release()
		default:
			werr := l.cmd.Wait()
			ctl.finished()
			msg := strings.TrimSpace(g.discard())
			switch {
			case st.Error != "":
				msg = st.Error
			case msg == "" && werr != nil:
				msg = werr.Error()
			case msg == "":
				msg = "the sandbox exited before starting the script"
			}
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, errors.New(firstLine(msg)), nil
		}
	}
	werr := l.cmd.Wait()
	l.waited.Store(true)
	ctl.finished()
	if l.afterWait != nil {
		l.afterWait()
	}
	dur := time.Since(started)

	res = &SandboxResult{Duration: dur.Milliseconds(), Isolation: l.iso,
		Output: stdout.capture.String(), Error: stderr.capture.String(),
		Truncated: stdout.capture.truncated || stderr.capture.truncated}
	code := exitStatus(l.cmd.ProcessState)
	if status != nil {
		// The supervisor's last word says whether everything the script
		// started is gone; without it (the supervisor itself was stopped),
		// skillctl stops what it can reach and checks. Before it, a line
		// may say that the script could not be executed at all.
		final := readStatus(status)
		if final.Stage == "start" {
			return nil, nil, &StartError{Skill: p.skillName, Err: errors.New(final.Error)}
		}
		left := final.Left
		if !final.Done {
			left = l.sweep()
		}
		switch {
		case left > 0:
			res.Status = "error"
			return res, nil, fmt.Errorf("run %s: %d of the script's processes could not be stopped; stop them by hand (process group %d)", p.skillName, left, l.group.Load())
		case !final.Done && ctx.Err() == nil && tctx.Err() == nil:
			res.Status = "error"
			return res, nil, fmt.Errorf("run %s: the sandbox supervisor ended before the script did (%v); every process of the script was stopped", p.skillName, werr)
		}
	}
	switch {
	case errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		res.Status = "timeout"
		return res, nil, &TimeoutError{Skill: p.skillName, After: timeout}
	case ctx.Err() != nil:
		res.Status = "error"
		return res, nil, ctx.Err()
	case code == 0:
		res.Status = "success"
		return res, nil, nil
	case code < 0:
		res.Status = "error"
		return res, nil, fmt.Errorf("run %s: %v", p.skillName, werr)
	}
	res.Status, res.ExitCode = "error", code
	return res, nil, &ExitError{Skill: p.skillName, Code: code}
}

// control is the Cmd.Cancel of a launch: SIGTERM to the tree now, SIGKILL to
// whatever is left after the grace period, never after the process was waited for.
type control struct {
	l     *launch
	mu    sync.Mutex
	timer *time.Timer
	done  bool
}

func (c *control) cancel() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return nil
	}
	c.l.terminate()
	c.timer = time.AfterFunc(KillGrace, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.done {
			c.l.kill()
		}
	})
	return nil
}

func (c *control) finished() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	if c.timer != nil {
		c.timer.Stop()
	}
}

// readStatus reads one status line of the helper; EOF without one means the
// helper never got to run (the sandbox tool failed before it), or ended
// without its last word.
func readStatus(f *bufio.Reader) helperStatus {
	data, _ := f.ReadString('\n')
	var st helperStatus
	if strings.TrimSpace(data) == "" {
		return st
	}
	if err := json.Unmarshal([]byte(data), &st); err != nil {
		st.Error = "unreadable helper status: " + firstLine(data)
	}
	return st
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// tiersFor lists the tiers to try for a requested isolation.
func tiersFor(requested string) ([]tier, error) {
	switch requested {
	case TierAuto:
		ts := platformTiers()
		if len(ts) == 0 {
			return nil, fmt.Errorf("no sandbox is available on this operating system")
		}
		return ts, nil
	case TierNone:
		return []tier{noneTier{}}, nil
	}
	for _, t := range allTiers() {
		if t.name() == requested {
			return []tier{t}, nil
		}
	}
	return nil, fmt.Errorf("%s: not available on this operating system", requested)
}

// withEnv returns env with SKILL_SANDBOX added; tier none always has the
// host's network, and says so in SKILL_NETWORK.
func withEnv(env []string, tierName string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if tierName == TierNone && strings.HasPrefix(kv, "SKILL_NETWORK=") {
			kv = "SKILL_NETWORK=host"
		}
		out = append(out, kv)
	}
	return append(out, "SKILL_SANDBOX="+tierName)
}
