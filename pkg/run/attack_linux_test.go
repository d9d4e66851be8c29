package run

// Attacks on the sandbox's promise (SPEC §7 "What the sandbox promises",
// §15), one test per attack, each in every tier this machine offers. Each
// reproduces what a hostile script did and checks that it now fails.
// Input attacks (YAML, archives, rendering, --write, trust) live with the
// code they attack; docs/security.md lists them all.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sandboxTiers are the tiers that claim isolation.
var sandboxTiers = []string{TierBwrap, TierNamespaces, TierLandlock}

func newMarker() string { return strconv.Itoa(600000 + rand.IntN(99999)) }

// noneLeft waits up to two seconds for every process whose command line
// holds marker to be gone, and fails naming the survivors.
func noneLeft(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids := processesWith(marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("processes of the script outlived the run: %v", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Attack 1: the script signals (SIGKILL, every thread) its supervisor and
// probes skillctl itself. The supervisor is outside the script's Landlock
// domain (landlock tier) or pid 1 of its namespace: it survives, reports,
// and stops the script's background process.
func TestAttackSignalSupervisor(t *testing.T) {
	for _, tier := range sandboxTiers {
		t.Run(tier, func(t *testing.T) {
			requireTier(t, tier)
			marker := newMarker()
			s := writeSkill(t, "signals", nil, fmt.Sprintf(`sup=0
for task in /proc/$PPID/task/*; do kill -9 "${task##*/}" 2>/dev/null && sup=$((sup+1)); done
parent=0
kill -0 "$1" 2>/dev/null && parent=1
echo "supervisor=$sup parent=$parent"
sleep %s &
exit 0
`, marker))
			o := sandboxOptions(t, s, tier)
			o.Args = []string{strconv.Itoa(os.Getpid())}
			res, err := runIt(t, o)
			require.NoError(t, err, res.Error)
			assert.Equal(t, "success", res.Status)
			assert.Contains(t, res.Output, "parent=0", "the script reached skillctl")
			if tier == TierLandlock {
				assert.Contains(t, res.Output, "supervisor=0", "the script signalled its supervisor")
			}
			noneLeft(t, marker)
		})
	}
}

// Attack 2: a process that keeps forking a new session and exiting
// escapes a process-group kill and a scan of descendants. With setsid
// and setpgid kept from leaving the group (or a pid namespace), the group
// kill reaches it, in tier none too.
func TestAttackForkAndExitLoop(t *testing.T) {
	for _, tier := range linuxTiers {
		for _, timeout := range []bool{false, true} {
			name := tier + "/exits"
			if timeout {
				name = tier + "/timeout"
			}
			t.Run(name, func(t *testing.T) {
				requireTier(t, tier)
				marker := newMarker()
				end := "sleep 0.5\nexit 0\n"
				if timeout {
					end = "sleep 30\n"
				}
				// A tight loop where Python is there, a slower one in sh otherwise.
				s := writeSkill(t, "wanderer", nil, fmt.Sprintf(`if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 -c '
import os
while True:
    if os.fork() > 0:
        os._exit(0)
    try:
        os.setsid()
    except OSError:
        pass
' %[1]s </dev/null >/dev/null 2>&1 &
else
  cat > "$TMPDIR/w" <<'EOF'
#!/bin/sh
setsid sh "$0" "$1" </dev/null >/dev/null 2>&1 &
exit 0
EOF
  sh "$TMPDIR/w" %[1]s &
fi
`, marker)+end)
				o := sandboxOptions(t, s, tier)
				o.Timeout = time.Second
				if !timeout {
					// the script exits at once; room for a loaded machine
					o.Timeout = 15 * time.Second
				}
				res, err := runIt(t, o)
				if timeout {
					var te *TimeoutError
					require.ErrorAs(t, err, &te)
					assert.Equal(t, "timeout", res.Status)
				} else {
					require.NoError(t, err, res.Error)
				}
				noneLeft(t, marker)
			})
		}
	}
}

// Attack 3: descriptors skillctl had open (here one to a 0600 file,
// inherited without close-on-exec) reach the script; and TIOCSTI types
// into a terminal. The script gets 0, 1 and 2 only, and TIOCSTI is refused.
func TestAttackInheritedDescriptors(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("hunter2"), 0o600))
	fd, err := syscall.Open(secret, syscall.O_RDONLY, 0) // no O_CLOEXEC: inherited by children
	require.NoError(t, err)
	defer syscall.Close(fd)
	for _, tier := range linuxTiers {
		t.Run(tier, func(t *testing.T) {
			requireTier(t, tier)
			s := writeSkill(t, "fds", nil, `for f in /proc/$$/fd/*; do echo "fd ${f##*/}"; done
cat /proc/$$/fd/`+strconv.Itoa(fd)+` 2>/dev/null && echo LEAK
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 -c 'import fcntl,termios,errno
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"x")
except OSError as e:
    print("tiocsti", errno.errorcode[e.errno])' 
fi
`)
			o := sandboxOptions(t, s, tier)
			res, err := runIt(t, o)
			require.NoError(t, err, res.Error)
			assert.NotContains(t, res.Output, "LEAK")
			var fds []string
			for _, line := range strings.Split(res.Output, "\n") {
				if n, ok := strings.CutPrefix(line, "fd "); ok {
					fds = append(fds, n)
				}
			}
			// The shell itself may hold the script open on a high fd.
			for _, n := range fds {
				if n != "0" && n != "1" && n != "2" {
					assert.NotEqual(t, strconv.Itoa(fd), n, "an inherited descriptor reached the script")
					target, _ := os.Readlink("/proc/self/fd/" + n)
					assert.NotEqual(t, secret, target)
				}
			}
			assert.NotContains(t, fds, strconv.Itoa(fd))
			if strings.Contains(res.Output, "tiocsti") {
				assert.Contains(t, res.Output, "tiocsti EPERM", "TIOCSTI must be refused before the descriptor is looked at")
			}
		})
	}
}

// Attack 4: the script reaches a unix socket of the host, by path (as an
// ssh-agent socket) or abstract. In every sandbox tier without the network
// permission it cannot even create one.
func TestAttackHostUnixSockets(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3 inside the sandbox")
	}
	dir, err := os.MkdirTemp("", "skillctl-agent-")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "agent.sock")
	abstract := "skillctl-test-" + newMarker()
	accepted := make(chan string, 4)
	for _, addr := range []string{path, "@" + abstract} {
		l, err := net.Listen("unix", addr)
		require.NoError(t, err)
		defer l.Close()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted <- addr
				c.Close()
			}
		}()
	}
	for _, tier := range sandboxTiers {
		t.Run(tier, func(t *testing.T) {
			requireTier(t, tier)
			s := writeSkill(t, "sockets", nil, `/usr/bin/python3 - "$1" "$2" <<'EOF'
import socket, sys
for addr in (sys.argv[1], "\0" + sys.argv[2]):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(addr)
        print("CONNECTED", repr(addr))
    except OSError as e:
        print("refused", e)
EOF
`)
			o := sandboxOptions(t, s, tier)
			o.Args = []string{path, abstract}
			res, err := runIt(t, o)
			require.NoError(t, err, res.Error)
			assert.NotContains(t, res.Output, "CONNECTED")
			assert.Equal(t, 2, strings.Count(res.Output, "refused"), res.Output+res.Error)
			select {
			case a := <-accepted:
				t.Fatalf("the host socket %s accepted a connection from the sandbox", a)
			default:
			}
		})
	}
}

// Attack 5: a granted secret shows on a command line (/proc/PID/cmdline,
// readable by every local user). No process of the run carries it there.
func TestAttackSecretsOnCommandLines(t *testing.T) {
	secret := "s3cret-" + newMarker()
	for _, tier := range linuxTiers {
		t.Run(tier, func(t *testing.T) {
			requireTier(t, tier)
			s := writeSkill(t, "secrets", []string{"permissions: [env:SKILLCTL_TEST_TOKEN]"},
				"echo ready > \"$SKILL_WORKDIR/ready\"\nsleep 1\n")
			o := sandboxOptions(t, s, tier)
			o.Workdir = t.TempDir()
			o.Env = []string{"SKILLCTL_TEST_TOKEN"}
			o.Getenv = func(k string) string {
				if k == "SKILLCTL_TEST_TOKEN" {
					return secret
				}
				return ""
			}
			done := make(chan error, 1)
			go func() { _, err := o.Run(context.Background()); done <- err }()
			var seen []string
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				if _, err := os.Stat(filepath.Join(o.Workdir, "ready")); err == nil {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			helpers := 0 // the run's own processes, so that the scan is known to have seen them
			for _, p := range readProcs() {
				line := cmdline(p.pid)
				if strings.Contains(line, HelperCommand) && strings.Contains(line, o.Workdir) {
					helpers++
				}
				if strings.Contains(line, secret) {
					seen = append(seen, line)
				}
			}
			require.NoError(t, <-done)
			assert.Positive(t, helpers, "the scan ran while the script did")
			assert.Empty(t, seen, "the secret is on a command line")
		})
	}
}

// cliEnv is a place where the built skillctl can run as another user: a
// world-readable folder with a copy of the binary, and folders that user owns.
type cliEnv struct {
	dir, bin, home, state, tmp string
	uid, gid                   int
}

// newCLIEnv prepares a run of the skillctl binary as an unprivileged user:
// the current one, or nobody (65534) when the tests run as root, since
// Linux exempts root from the process limit.
func newCLIEnv(t *testing.T) *cliEnv {
	t.Helper()
	needHelper(t)
	dir, err := os.MkdirTemp("", "skillctl-attack-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	e := &cliEnv{dir: dir, bin: filepath.Join(dir, "skillctl"), home: filepath.Join(dir, "home"),
		state: filepath.Join(dir, "state"), tmp: filepath.Join(dir, "tmp"), uid: os.Getuid(), gid: os.Getgid()}
	data, err := os.ReadFile(skillctlBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(e.bin, data, 0o755))
	if e.uid == 0 {
		e.uid, e.gid = 65534, 65534
	}
	for _, d := range []string{e.home, e.state, e.tmp} {
		require.NoError(t, os.Mkdir(d, 0o700))
		require.NoError(t, os.Chown(d, e.uid, e.gid))
	}
	return e
}

// skill writes a world-readable skill folder with scripts/run.sh.
func (e *cliEnv) skill(t *testing.T, name, script string) string {
	d := filepath.Join(e.dir, name)
	require.NoError(t, os.MkdirAll(filepath.Join(d, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(d, "SKILL.md"),
		[]byte("---\nname: "+name+"\ndescription: An attack.\nentrypoint: scripts/run.sh\n---\nAttack.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(d, "scripts", "run.sh"), []byte("#!/bin/sh\n"+script), 0o755))
	return d
}

// command is `skillctl ARGS` as the environment's user, with at most
// nproc processes for that user (0: unchanged).
func (e *cliEnv) command(nproc int, args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, args...)
	if nproc > 0 {
		cmd = exec.Command("/usr/bin/prlimit", append([]string{"--nproc=" + strconv.Itoa(nproc), "--", e.bin}, args...)...)
	}
	cmd.Dir = e.dir
	cmd.Env = []string{"HOME=" + e.home, "XDG_STATE_HOME=" + e.state, "TMPDIR=" + e.tmp, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if e.uid != os.Getuid() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(e.uid), Gid: uint32(e.gid)}
	}
	return cmd
}

// records reads the run records the environment's skillctl appended.
func (e *cliEnv) records(t *testing.T) []Record {
	f, err := os.Open(filepath.Join(e.state, "skillctl", RecordsFile))
	require.NoError(t, err, "no run record")
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out = append(out, r)
	}
	return out
}

// tasksOf counts the threads of uid on the machine.
func tasksOf(uid int) int {
	n := 0
	for _, p := range readProcs() {
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+strconv.Itoa(p.pid), &st) == nil && int(st.Uid) == uid {
			tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(p.pid) + "/task")
			n += len(tasks)
		}
	}
	return n
}

// Attack 6: a fork bomb under the user's process limit used to take the
// threads skillctl needs (Go fatal error, exit 2, no record). Now the
// script's own limit stays below, skillctl reports the timeout, records it,
// and nothing of the bomb is left.
func TestAttackForkBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("a fork bomb is not short")
	}
	if _, err := os.Stat("/usr/bin/prlimit"); err != nil {
		t.Skip("needs prlimit (util-linux) to set the user's process limit")
	}
	for _, tier := range linuxTiers {
		t.Run(tier, func(t *testing.T) {
			requireTier(t, tier)
			e := newCLIEnv(t)
			marker := newMarker()
			d := e.skill(t, "bomb", "echo started\nb() { b | b & }\nb\nsleep "+marker+"\n")
			limit := tasksOf(e.uid) + 400
			cmd := e.command(limit, "run", d, "--isolation", tier, "--timeout", "2s", "--json")
			out, err := cmd.Output()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			stderr := string(ee.Stderr)
			assert.NotContains(t, stderr, "fatal error", "skillctl itself crashed")
			assert.Equal(t, 124, ee.ExitCode(), "%s\n%s", out, stderr)
			var doc map[string]any
			require.NoError(t, json.Unmarshal(out, &doc), "%s", out)
			assert.Equal(t, "timeout", doc["status"])
			recs := e.records(t)
			require.NotEmpty(t, recs)
			last := recs[len(recs)-1]
			assert.Equal(t, StateError, last.State.Status)
			assert.Contains(t, last.State.Error, "timed out")
			deadline := time.Now().Add(3 * time.Second)
			for tasksOf(e.uid) > 0 && e.uid != os.Getuid() && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if e.uid != os.Getuid() {
				assert.Zero(t, tasksOf(e.uid), "processes of the bomb are left")
			}
			noneLeft(t, marker)
		})
	}
}

// Attack 7: in tier none the script kills its supervisor, or skillctl
// itself. skillctl reports the first (and stops the script's processes);
// the second still leaves the run's record, and the supervisor stops the
// script when skillctl is gone.
func TestAttackKillSupervisorAndSkillctl(t *testing.T) {
	requireTier(t, TierNone)
	t.Run("supervisor", func(t *testing.T) {
		marker := newMarker()
		s := writeSkill(t, "parricide", nil, "sleep "+marker+" &\nkill -9 $PPID\nsleep 2\n")
		o := sandboxOptions(t, s, TierNone)
		o.StateDir = t.TempDir()
		res, err := runIt(t, o)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "supervisor ended before the script")
		assert.Equal(t, "error", res.Status)
		noneLeft(t, marker)
		recs := readRecords(t, o.StateDir)
		require.Len(t, recs, 2)
		assert.Equal(t, StateError, recs[1].State.Status)
	})
	t.Run("skillctl", func(t *testing.T) {
		e := newCLIEnv(t)
		marker := newMarker()
		d := e.skill(t, "regicide", "sleep "+marker+" &\nkill -9 $(cut -d' ' -f4 /proc/$PPID/stat)\nsleep 5\n")
		cmd := e.command(0, "run", d, "--isolation", "none")
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal())
		noneLeft(t, marker)
		recs := e.records(t)
		require.Len(t, recs, 1)
		assert.Equal(t, StateRunning, recs[0].State.Status)
		assert.Equal(t, "regicide", recs[0].Skill)
	})
}

// Attack 16 (docs): /etc is visible read-only in the bwrap tier, and the
// docs claimed every process can read it anyway; a root user's script read
// /etc/shadow. The password hash files are hidden in bwrap.
func TestAttackPasswordHashesHiddenInBwrap(t *testing.T) {
	requireTier(t, TierBwrap)
	if _, err := os.Stat("/etc/shadow"); err != nil {
		t.Skip("this machine has no /etc/shadow")
	}
	s := writeSkill(t, "shadow", nil, "if head -c 1 /etc/shadow >/dev/null 2>&1; then echo READ; else echo DENIED; fi\n")
	res, err := runIt(t, sandboxOptions(t, s, TierBwrap))
	require.NoError(t, err, res.Error)
	assert.Equal(t, "DENIED\n", res.Output)
}

// The resource limits of security.md, as the script sees them, in every tier.
func TestScriptLimits(t *testing.T) {
	want := scriptLimits()
	for _, tier := range linuxTiers {
		t.Run(tier, func(t *testing.T) {
			requireTier(t, tier)
			s := writeSkill(t, "limits", nil, "cat /proc/self/limits\n")
			res, err := runIt(t, sandboxOptions(t, s, tier))
			require.NoError(t, err, res.Error)
			soft := map[string]string{}
			for _, line := range strings.Split(res.Output, "\n") {
				for _, name := range []string{"Max open files", "Max file size", "Max core file size", "Max address space", "Max processes"} {
					if rest, ok := strings.CutPrefix(line, name); ok {
						soft[name] = strings.Fields(rest)[0]
					}
				}
			}
			assert.Equal(t, strconv.Itoa(rlimitFiles), soft["Max open files"])
			assert.Equal(t, strconv.Itoa(rlimitFileSize), soft["Max file size"])
			assert.Equal(t, "0", soft["Max core file size"])
			assert.Equal(t, strconv.FormatUint(want.AddressSpace, 10), soft["Max address space"])
			procs, err := strconv.ParseUint(soft["Max processes"], 10, 64)
			require.NoError(t, err, "the process limit is set: %q", soft["Max processes"])
			assert.LessOrEqual(t, procs, uint64(rlimitProcs)+systemTasks()+procsReserve)
		})
	}
}
