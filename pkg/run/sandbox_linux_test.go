package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/skill"
)

// linuxTiers are the tiers exercised on Linux; each skips where unavailable.
var linuxTiers = []string{TierBwrap, TierNamespaces, TierLandlock, TierNone}

// documentedEnv are the variables a script gets (SPEC §7).
var documentedEnv = []string{"HOME", "INPUT_JSON", "LANG", "PATH", "SKILL_INPUT_FILE", "SKILL_NAME", "SKILL_NETWORK",
	"SKILL_PATH", "SKILL_SANDBOX", "SKILL_WORKDIR", "TIMEOUT", "TMPDIR"}

func runIt(t *testing.T, o *Options) (*SandboxResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := o.Run(ctx)
	require.NotNil(t, rep)
	var se *SandboxError
	require.False(t, errors.As(err, &se), "sandbox setup failed: %v", err)
	require.NotNil(t, rep.Sandbox, "no result: %v", err)
	return rep.Sandbox, err
}

func TestSandboxTiers(t *testing.T) {
	for _, tier := range linuxTiers {
		t.Run(tier, func(t *testing.T) {
			requireTier(t, tier)
			t.Run("environment", func(t *testing.T) { testEnvironment(t, tier) })
			t.Run("input", func(t *testing.T) { testInput(t, tier) })
			t.Run("network", func(t *testing.T) { testNetwork(t, tier) })
			if tier != TierNone {
				t.Run("filesystem", func(t *testing.T) { testFilesystem(t, tier) })
			}
			t.Run("timeout kills the tree", func(t *testing.T) { testTimeoutTree(t, tier) })
			t.Run("exit code", func(t *testing.T) { testExitCode(t, tier) })
			t.Run("output cap", func(t *testing.T) { testOutputCap(t, tier) })
		})
	}
}

// The script sees exactly the documented variables plus granted ones; a
// secret in skillctl's environment is absent.
func testEnvironment(t *testing.T, tier string) {
	t.Setenv("SKILLCTL_TEST_SECRET", "hunter2")
	t.Setenv("SKILLCTL_TEST_TOKEN", "granted-token")
	t.Setenv("SKILLCTL_TEST_UNDECLARED", "not-declared")
	s := writeSkill(t, "envcheck", []string{"permissions: [env:SKILLCTL_TEST_TOKEN]"},
		`tr '\0' '\n' < /proc/$$/environ`+"\n")
	o := sandboxOptions(t, s, tier)
	o.Getenv = os.Getenv
	o.Env = []string{"SKILLCTL_TEST_TOKEN", "SKILLCTL_TEST_UNDECLARED"}
	res, err := runIt(t, o)
	require.NoError(t, err, res.Error)
	env := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSpace(res.Output), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var names []string
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	want := append(append([]string(nil), documentedEnv...), "SKILLCTL_TEST_TOKEN")
	sort.Strings(want)
	assert.Equal(t, want, names)
	assert.NotContains(t, res.Output, "hunter2")
	assert.NotContains(t, res.Output, "not-declared")
	assert.Equal(t, "granted-token", env["SKILLCTL_TEST_TOKEN"])
	assert.Equal(t, tier, env["SKILL_SANDBOX"])
	assert.Equal(t, tier, res.Isolation.Tier)
	assert.Equal(t, "envcheck", env["SKILL_NAME"])
	assert.Equal(t, env["SKILL_WORKDIR"], env["HOME"])
	assert.Equal(t, "C.UTF-8", env["LANG"])
	assert.Equal(t, SandboxPath(), env["PATH"])
	assert.Equal(t, "30000", env["TIMEOUT"])
	assert.Equal(t, "{}", env["INPUT_JSON"])
	wantNet := "none"
	if tier == TierNone {
		wantNet = "host"
	}
	assert.Equal(t, wantNet, env["SKILL_NETWORK"])
	assert.Equal(t, wantNet, res.Isolation.Network)
	assert.Equal(t, tier == TierNone, res.Isolation.Unsandboxed)
	real, _ := filepath.EvalSymlinks(s.Dir)
	assert.Equal(t, real, env["SKILL_PATH"])
	assert.NotEqual(t, os.TempDir(), env["TMPDIR"], "TMPDIR is private")
	assert.Nil(t, res.Workdir, "a fresh workdir left empty is removed")
	assert.Empty(t, res.Files)
}

// The input comes on stdin (then EOF), in SKILL_INPUT_FILE and in INPUT_JSON.
func testInput(t *testing.T, tier string) {
	s := writeSkill(t, "inputcheck", nil, `cat; echo; cat "$SKILL_INPUT_FILE"; echo; printf '%s\n' "$INPUT_JSON"`+"\n")
	o := sandboxOptions(t, s, tier)
	in, err := BuildInput(`{"name": "Ada", "n": 1.50, "tags": ["a", "<b>"]}`, []string{"user.id=7"}, nil)
	require.NoError(t, err)
	o.Input = in
	res, err := runIt(t, o)
	require.NoError(t, err, res.Error)
	want := `{"n":1.50,"name":"Ada","tags":["a","<b>"],"user":{"id":7}}`
	assert.Equal(t, want+"\n"+want+"\n"+want+"\n", res.Output)
}

// A TCP listener on 127.0.0.1 is unreachable, unless the skill declares
// network and the run grants it.
func testNetwork(t *testing.T, tier string) {
	bash, err := findProgram("bash")
	if err != nil {
		t.Skip("bash is needed to open a TCP connection from a script")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var accepted sync.WaitGroup
	accepted.Add(1)
	var mu sync.Mutex
	conns := 0
	go func() {
		defer accepted.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns++
			mu.Unlock()
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	script := `if exec 3<>/dev/tcp/127.0.0.1/$1; then echo connected; else echo refused; fi` + "\n"
	for _, granted := range []bool{false, true} {
		t.Run(fmt.Sprintf("granted=%v", granted), func(t *testing.T) {
			s := writeSkill(t, "netcheck", []string{"permissions: [network]"}, "")
			require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "scripts", "run.sh"), []byte("#!"+bash+"\n"+script), 0o755))
			o := sandboxOptions(t, s, tier)
			o.Args = []string{port}
			o.AllowNetwork = granted
			mu.Lock()
			before := conns
			mu.Unlock()
			res, err := runIt(t, o)
			require.NoError(t, err, res.Error)
			if granted || tier == TierNone {
				assert.Equal(t, "connected\n", res.Output, res.Error)
				assert.Equal(t, "host", res.Isolation.Network)
				return
			}
			assert.Equal(t, "refused\n", res.Output)
			assert.Equal(t, "none", res.Isolation.Network)
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			assert.Equal(t, before, conns, "the listener accepted nothing")
			mu.Unlock()
		})
	}
	ln.Close()
	accepted.Wait()
}

// Writes outside the workdir and into the skill folder fail, and so does
// reading a file in the user's home; the workdir and TMPDIR are writable.
func testFilesystem(t *testing.T, tier string) {
	outside := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home) // the user's home, as skillctl sees it
	require.NoError(t, os.WriteFile(filepath.Join(home, "secret.txt"), []byte("hunter2\n"), 0o600))
	script := `
try() { if eval "$2" 2>/dev/null; then echo "$1: allowed"; else echo "$1: denied"; fi; }
try outside 'echo x > "$1/escaped"'
try skill 'echo x > "$SKILL_PATH/planted"'
try skill-script 'echo x >> "$SKILL_PATH/scripts/run.sh"'
try home-read 'cat "$2/secret.txt"'
try workdir 'mkdir -p out && echo x > out/made'
try tmpdir 'echo x > "$TMPDIR/t" && cat "$TMPDIR/t" >/dev/null'
try skill-read 'cat "$SKILL_PATH/SKILL.md" >/dev/null'
echo to-stderr > /dev/stderr
`
	s := writeSkill(t, "fscheck", nil, script)
	o := sandboxOptions(t, s, tier)
	o.Args = []string{outside, home}
	res, err := runIt(t, o)
	require.NoError(t, err, res.Error)
	assert.Equal(t, strings.Join([]string{"outside: denied", "skill: denied", "skill-script: denied",
		"home-read: denied", "workdir: allowed", "tmpdir: allowed", "skill-read: allowed", ""}, "\n"), res.Output)
	assert.NotContains(t, res.Output, "hunter2")
	assert.Equal(t, "to-stderr\n", res.Error)
	assert.NoFileExists(t, filepath.Join(outside, "escaped"))
	assert.NoFileExists(t, filepath.Join(s.Dir, "planted"))
	script0, _ := os.ReadFile(filepath.Join(s.Dir, "scripts", "run.sh"))
	assert.Equal(t, "#!/bin/sh\n"+script, string(script0))
	assert.Equal(t, []string{"out/made"}, res.Files)
	require.NotNil(t, res.Workdir, "a workdir the script wrote into is kept")
	assert.FileExists(t, filepath.Join(*res.Workdir, "out", "made"))
	assert.Contains(t, filepath.Base(*res.Workdir), "skillctl-work-")
}

// At the timeout, the script, a background child and its setsid
// grandchild are all stopped, and the run reports timeout / 124.
func testTimeoutTree(t *testing.T, tier string) {
	marker := strconv.Itoa(700000 + rand.IntN(200000))
	script := fmt.Sprintf(`sh -c 'setsid sleep %[1]s1 & sleep %[1]s2' &
sleep %[1]s3 &
echo ready > ready
sleep %[1]s4
`, marker)
	s := writeSkill(t, "treecheck", nil, script)
	o := sandboxOptions(t, s, tier)
	o.Workdir = t.TempDir()
	o.Timeout = 1500 * time.Millisecond
	type result struct {
		res *SandboxResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := o.Run(context.Background())
		done <- result{rep.Sandbox, err}
	}()
	var pids []int
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(o.Workdir, "ready")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Let the background processes exec, then find them by their command line.
	for time.Now().Before(deadline) {
		pids = processesWith(marker)
		if len(pids) >= 5 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := <-done
	require.GreaterOrEqual(t, len(pids), 5, "the script's processes were found: %v", pids)
	var te *TimeoutError
	require.ErrorAs(t, r.err, &te)
	assert.Positive(t, te.After)
	require.NotNil(t, r.res)
	assert.Equal(t, "timeout", r.res.Status)
	assert.Equal(t, 124, r.res.ExitCode)
	for _, pid := range pids {
		assert.False(t, alive(pid), "process %d (%s) survived the timeout", pid, cmdline(pid))
	}
	assert.Empty(t, processesWith(marker), "nothing of the run is left")
}

// processesWith lists the processes whose command line holds marker.
func processesWith(marker string) []int {
	var out []int
	for _, p := range readProcs() {
		if strings.Contains(cmdline(p.pid), marker) && alive(p.pid) {
			out = append(out, p.pid)
		}
	}
	return out
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// alive reports whether pid runs (a zombie waiting to be reaped does not).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || !strings.HasPrefix(string(b[i+1:]), " Z")
}

// The script's own exit status comes back, with its stderr.
func testExitCode(t *testing.T, tier string) {
	s := writeSkill(t, "exitcheck", nil, "echo out; echo oops >&2; exit 7\n")
	o := sandboxOptions(t, s, tier)
	o.StateDir = t.TempDir()
	res, err := runIt(t, o)
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 7, ee.Code)
	assert.Equal(t, "error", res.Status)
	assert.Equal(t, 7, res.ExitCode)
	assert.Equal(t, "out\n", res.Output)
	assert.Equal(t, "oops\n", res.Error)
	recs := readRecords(t, o.StateDir)
	require.Len(t, recs, 2, "a running line before the script started, the final one after")
	assert.Equal(t, StateRunning, recs[0].State.Status)
	assert.Equal(t, recs[0].ID, recs[1].ID)
	rec := recs[1]
	assert.Equal(t, []string{StatePending, StateRunning, StateError}, statuses(rec))
	assert.Equal(t, StateError, rec.State.Status)
	assert.Contains(t, rec.State.Error, "exited with status 7")
	require.NotNil(t, rec.State.Metadata)
	assert.Equal(t, 7, rec.State.Metadata.ExitCode)
	assert.Equal(t, tier, rec.State.Metadata.Isolation)
	assert.LessOrEqual(t, rec.State.Time.Start, rec.State.Time.End)
}

// 100 MiB of output is cut to 1 MiB, without blocking the script.
func testOutputCap(t *testing.T, tier string) {
	s := writeSkill(t, "capcheck", nil, "head -c 104857600 /dev/zero | tr '\\0' a\necho done >&2\n")
	o := sandboxOptions(t, s, tier)
	res, err := runIt(t, o)
	require.NoError(t, err, res.Error)
	assert.Equal(t, "success", res.Status)
	assert.True(t, res.Truncated)
	assert.Equal(t, OutputCap, len(res.Output))
	assert.Equal(t, strings.Repeat("a", 16), res.Output[:16])
	assert.Equal(t, "done\n", res.Error)
}

func TestNamespacesTier(t *testing.T) {
	requireTier(t, TierNamespaces)
	// pid 1 of the sandbox is the helper; the script sees only its own processes.
	s := writeSkill(t, "nscheck", nil, `tr '\0' ' ' < /proc/1/cmdline; echo
ls /proc | grep -c '^[0-9]'
hostname >/dev/null && echo uts
`)
	o := sandboxOptions(t, s, TierNamespaces)
	res, err := runIt(t, o)
	require.NoError(t, err, res.Error)
	lines := strings.Split(strings.TrimSpace(res.Output), "\n")
	require.Len(t, lines, 3, res.Output)
	assert.Contains(t, lines[0], HelperCommand, "pid 1 is the sandbox helper")
	if strings.Contains(res.Isolation.Processes, "/proc private") {
		n, _ := strconv.Atoi(lines[1])
		assert.LessOrEqual(t, n, 6, "only the sandbox's processes are visible")
	}
	assert.Equal(t, TierNamespaces, res.Isolation.Tier)
	assert.Positive(t, res.Isolation.Landlock)
	testFilesystem(t, TierNamespaces)
	testEnvironment(t, TierNamespaces)
}

func TestUnavailableTierExits125(t *testing.T) {
	needHelper(t)
	s := writeSkill(t, "never", nil, "echo ran > ran\n")
	tests := []struct {
		name string
		tier string
		self string
		msg  string
	}{
		{name: "seatbelt on linux", tier: TierSeatbelt, self: skillctlBin, msg: "seatbelt: not available on this operating system"},
		{name: "no helper", tier: TierLandlock, self: "", msg: "helper cannot run"},
		{name: "auto without a helper", tier: TierAuto, self: "", msg: "namespaces: skillctl's own executable is unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := sandboxOptions(t, s, tt.tier)
			o.Self = tt.self
			o.Workdir = filepath.Join(t.TempDir(), "new")
			o.StateDir = t.TempDir()
			rep, err := o.Run(context.Background())
			var se *SandboxError
			require.ErrorAs(t, err, &se)
			assert.NotEmpty(t, se.Reasons)
			assert.Contains(t, err.Error(), tt.msg)
			assert.Contains(t, err.Error(), "nothing was run")
			assert.NoDirExists(t, o.Workdir, "nothing ran, and the workdir it would have created is gone")
			require.NotNil(t, rep.Failure)
			assert.Equal(t, "SkillError", rep.Failure.Name)
			assert.Equal(t, "sandbox", rep.Failure.Details.Cause)
			assert.Equal(t, "never", rep.Failure.Details.SkillName)
			recs := readRecords(t, o.StateDir)
			require.Len(t, recs, 2)
			last := recs[len(recs)-1]
			assert.Equal(t, []string{StatePending, StateRunning, StateError}, statuses(last))
			assert.Equal(t, 125, last.State.Metadata.ExitCode)
		})
	}
}

func TestDangerousWithoutTerminalRunsNothing(t *testing.T) {
	needHelper(t)
	s := writeSkill(t, "wiper", []string{"dangerous: true"}, "echo ran > ran\n")
	o := sandboxOptions(t, s, TierNone)
	o.Workdir = t.TempDir()
	rep, err := o.Run(context.Background())
	assert.ErrorIs(t, err, skill.ErrDenied)
	var de *DeniedError
	require.ErrorAs(t, err, &de)
	assert.ErrorIs(t, de, skill.ErrDenied)
	assert.NoFileExists(t, filepath.Join(o.Workdir, "ran"))
	assert.Nil(t, rep.Sandbox)
	b, err := json.Marshal(rep.JSON())
	require.NoError(t, err)
	assert.Contains(t, string(b), `"cause":"denied"`)
	o.Yes = true
	_, err = o.Run(context.Background())
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(o.Workdir, "ran"))
}

func TestStreaming(t *testing.T) {
	requireTier(t, TierNone)
	s := writeSkill(t, "streamer", nil, "echo out; echo err >&2\n")
	var out, errOut strings.Builder
	var notes []Note
	o := sandboxOptions(t, s, TierNone)
	o.Capture = false
	o.Stdout, o.Stderr = &out, &errOut
	o.Notes = func(n Note) { notes = append(notes, n) }
	rep, err := o.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "out\n", out.String())
	assert.Equal(t, "err\n", errOut.String())
	require.NotEmpty(t, notes)
	assert.Equal(t, NoteIsolation, notes[0].Kind)
	assert.True(t, notes[0].Isolation.Unsandboxed)
	assert.Equal(t, "streamer", notes[0].Skill)
	assert.Equal(t, "out\n", rep.Sandbox.Output, "streamed output is also kept for the record")
}

func TestStartFailure(t *testing.T) {
	requireTier(t, TierNone)
	s := writeSkill(t, "broken", nil, "")
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "scripts", "run"), []byte("not a script\n"), 0o755))
	o := sandboxOptions(t, s, TierNone)
	rep, err := o.Run(context.Background())
	var st *StartError
	require.ErrorAs(t, err, &st)
	assert.False(t, errors.Is(st, skill.ErrNotFound) || errors.Is(st, skill.ErrDenied), "a plain start failure")
	assert.Contains(t, err.Error(), "exec format error")
	assert.Equal(t, "start", rep.Failure.Details.Cause)
}

func TestWorkdirRules(t *testing.T) {
	requireTier(t, TierNone)
	s := writeSkill(t, "writer", nil, "echo new > new.txt; echo changed > keep.txt\n")
	wd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(wd, "keep.txt"), []byte("old\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wd, "untouched.txt"), []byte("same\n"), 0o644))
	o := sandboxOptions(t, s, TierNone)
	o.Workdir = wd
	res, err := runIt(t, o)
	require.NoError(t, err)
	assert.Equal(t, []string{"keep.txt", "new.txt"}, res.Files)
	require.NotNil(t, res.Workdir)
	real, _ := filepath.EvalSymlinks(wd)
	assert.Equal(t, real, *res.Workdir)

	o.Workdir = filepath.Join(s.Dir, "scripts")
	_, err = o.Run(context.Background())
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, err.Error(), "must not contain one another")
}
