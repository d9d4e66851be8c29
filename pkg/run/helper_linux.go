package run

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// helperName is argv[0] of the helper, so that a skillctl binary
// reached through any path or link runs its own command line.
const helperName = "skillctl"

// helperSpec tells the helper what to set up. It travels as one JSON argument.
type helperSpec struct {
	Argv []string `json:"argv"`
	Dir  string   `json:"dir"`
	// Landlock is require (fail when it cannot be applied), try, or off.
	Landlock      string   `json:"landlock"`
	ReadOnly      []string `json:"ro,omitempty"`
	ReadOnlyFiles []string `json:"roFiles,omitempty"`
	ReadWrite     []string `json:"rw,omitempty"`
	DevFiles      []string `json:"devFiles,omitempty"`
	// Network leaves TCP/UDP unrestricted by Landlock.
	Network bool `json:"network,omitempty"`
	// NetByLandlock: Landlock is the only network isolation, so an ABI
	// that cannot restrict TCP is a setup failure.
	NetByLandlock bool `json:"netByLandlock,omitempty"`
	// MountProc mounts a private /proc (the helper is pid 1 of a new pid namespace).
	MountProc bool `json:"mountProc,omitempty"`
	// Subreaper keeps orphaned descendants below the helper.
	Subreaper bool `json:"subreaper,omitempty"`
	// DropEnv are variables the sandbox tool added that the script must not see.
	DropEnv []string `json:"dropEnv,omitempty"`
	// DropCaps empties the capability sets the script can get.
	DropCaps bool `json:"dropCaps,omitempty"`
	// Seccomp is the system call filter of the script (nil: none).
	Seccomp *seccompRules `json:"seccomp,omitempty"`
	// SeccompOptional: a filter the kernel refuses is left out rather than
	// failing the setup (tier none, which promises no isolation).
	SeccompOptional bool `json:"seccompOptional,omitempty"`
}

// Landlock modes of the helper.
const (
	landlockRequire = "require"
	landlockTry     = "try"
	landlockOff     = "off"
)

// helperStatusFD is the helper's status pipe, in skillctl's helper and in
// its second stage alike.
const helperStatusFD = 3

// helperStage is the first argument of the helper's second stage.
const helperStage = "--stage"

// stageGoFD is the second stage's go-ahead pipe: it executes the script
// only once the supervisor has told skillctl that the sandbox is set up,
// so that nothing the script does can come before that report.
const stageGoFD = 4

// Exit status of the helper when the second stage could not set up.
const stageFailed = 125

// HelperMain is the sandbox helper (skillctl __sandbox-exec SPEC), in two
// processes so that the script can never reach the one that supervises it:
//
//   - the supervisor (this process) stays outside the script's Landlock
//     domain and seccomp filter: it sets up /proc, becomes a subreaper (or
//     is pid 1 of the sandbox's pid namespace), starts the second stage in a process
//     group of its own, forwards termination signals, and when the script
//     exits kills and reaps everything it left, reporting on fd 3 that
//     nothing is left (verified: no child remains);
//   - the second stage (skillctl __sandbox-exec --stage SPEC) applies the
//     resource limits, Landlock, the capability drop and the seccomp
//     filter to itself, marks every descriptor but 0, 1 and 2 close-on-exec,
//     says it is ready, waits for the supervisor's go-ahead (sent once
//     skillctl has the supervisor's report) and executes the script in place.
//
// It returns the script's status (128+N for signal N, 127 when it could
// not be executed). A helper that could not confine itself returns an
// error (also reported on fd 3), and nothing ran.
func HelperMain(args []string) (int, error) {
	if len(args) == 2 && args[0] == helperStage {
		return stageMain(args[1])
	}
	syscall.CloseOnExec(helperStatusFD) // the second stage gets its own
	status := os.NewFile(helperStatusFD, "status")
	report := func(st helperStatus) {
		if status == nil {
			return
		}
		b, _ := json.Marshal(st)
		if _, err := status.Write(append(b, '\n')); err != nil {
			status.Close()
			status = nil
		}
	}
	fail := func(format string, a ...any) (int, error) {
		msg := fmt.Sprintf(format, a...)
		report(helperStatus{Stage: "setup", Error: msg})
		return 0, errors.New(msg)
	}
	if len(args) != 1 {
		return fail("the sandbox helper takes one argument")
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil || len(spec.Argv) == 0 {
		return fail("bad sandbox helper specification: %v", err)
	}
	// Every signal is caught, so that none the script can send (in a pid
	// namespace it can signal pid 1 only where a handler exists) stops the
	// supervisor.
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs)
	parent := os.Getppid()
	pid1 := os.Getpid() == 1
	proc := ""
	if spec.MountProc && pid1 {
		if err := mountPrivateProc(); err != nil {
			proc = "shared with the host (" + err.Error() + ")"
		} else {
			proc = "private"
		}
	}
	if spec.Subreaper && !pid1 {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return fail("cannot become a subreaper: %v", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return fail("cannot find skillctl's own executable: %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fail("pipe: %v", err)
	}
	goR, goW, err := os.Pipe()
	if err != nil {
		return fail("pipe: %v", err)
	}
	pid, err := syscall.ForkExec(self, []string{helperName, HelperCommand, helperStage, args[0]}, &syscall.ProcAttr{
		Dir: spec.Dir, Env: os.Environ(), Files: []uintptr{0, 1, 2, w.Fd(), goR.Fd()},
		Sys: &syscall.SysProcAttr{Setpgid: true}})
	w.Close()
	goR.Close()
	if err != nil {
		r.Close()
		goW.Close()
		return fail("cannot start the sandbox's second stage: %v", err)
	}
	// The second stage says it is confined (with its Landlock ABI) or why
	// it could not be; skillctl hears it before the script may start.
	sc := bufio.NewScanner(io.LimitReader(r, 64<<10))
	var ready helperStatus
	for ready.Error == "" && !ready.Ready && sc.Scan() {
		_ = json.Unmarshal(sc.Bytes(), &ready)
	}
	if !ready.Ready {
		goW.Close()
		r.Close()
		_, _ = syscall.Wait4(pid, nil, 0, nil)
		if ready.Error == "" {
			ready.Error = "the sandbox's second stage ended before it was set up"
		}
		return fail("%s", ready.Error)
	}
	report(helperStatus{OK: true, Proc: proc, Group: pid, Landlock: ready.Landlock})
	_, _ = goW.Write([]byte{1})
	goW.Close()
	// Then it executes the script (the pipe closes), or says why it could not.
	for sc.Scan() {
		var line helperStatus
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Stage == "start" {
			r.Close()
			_, _ = syscall.Wait4(pid, nil, 0, nil)
			report(line)
			report(helperStatus{Done: true})
			return 127, nil
		}
	}
	r.Close()
	if !pid1 && os.Getppid() != parent {
		// skillctl is already gone (its parent-death signal may have come
		// before the handler was there): stop the script now.
		killGroup(pid, pid1)
	}
	code := supervise(pid, pid1, sigs)
	left := killRest(pid, pid1)
	report(helperStatus{Done: true, Left: left})
	return code, nil
}

// stageMain is the second stage: confine this process, then become the script.
func stageMain(specJSON string) (int, error) {
	// Capabilities, the seccomp filter and the exec are per thread: do all
	// on this one.
	runtime.LockOSThread()
	syscall.CloseOnExec(helperStatusFD)
	status := os.NewFile(helperStatusFD, "status")
	say := func(st helperStatus) {
		b, _ := json.Marshal(st)
		_, _ = status.Write(append(b, '\n'))
	}
	fail := func(format string, a ...any) (int, error) {
		msg := fmt.Sprintf(format, a...)
		say(helperStatus{Stage: "setup", Error: msg})
		return stageFailed, errors.New(msg)
	}
	var spec helperSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil || len(spec.Argv) == 0 {
		return fail("bad sandbox helper specification: %v", err)
	}
	lim := scriptLimits()
	abi := 0
	if spec.Landlock != landlockOff {
		v, err := applyLandlock(&spec)
		if err != nil && spec.Landlock == landlockRequire {
			return fail("landlock: %v", err)
		}
		abi = v
	}
	if spec.DropCaps {
		if err := dropCapabilities(); err != nil {
			return fail("cannot drop capabilities: %v", err)
		}
	}
	if spec.Seccomp != nil {
		if err := applySeccomp(*spec.Seccomp); err != nil && !spec.SeccompOptional {
			return fail("%v", err)
		}
	}
	for _, k := range spec.DropEnv {
		os.Unsetenv(k)
	}
	env := os.Environ()
	if err := closeExtraFiles(); err != nil {
		return fail("cannot close inherited descriptors: %v", err)
	}
	say(helperStatus{Ready: true, Landlock: abi})
	// Wait for the go-ahead: none (the supervisor is gone) means stop here.
	var b [1]byte
	if n, _ := os.NewFile(stageGoFD, "go").Read(b[:]); n != 1 {
		return stageFailed, errors.New("the sandbox supervisor ended before the script started")
	}
	lim.apply()
	err := syscall.Exec(spec.Argv[0], spec.Argv, env)
	say(helperStatus{Stage: "start", Error: fmt.Sprintf("cannot execute %s: %v", spec.Argv[0], err)})
	return 127, nil
}

// closeExtraFiles marks every descriptor from 3 up close-on-exec, so that
// the script inherits only its stdin, stdout and stderr.
func closeExtraFiles() error {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}

// supervise reaps children and forwards termination signals until the
// script (main) exited, and returns its status.
func supervise(main int, pid1 bool, sigs chan os.Signal) int {
	for {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
			if pid == main {
				return waitCode(ws)
			}
		}
		sig, _ := (<-sigs).(syscall.Signal)
		switch sig {
		case syscall.SIGHUP:
			// The parent is gone (parent-death signal): stop everything now.
			killGroup(main, pid1)
		case syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT:
			forward(sig, main, pid1)
		}
	}
}

func waitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// forward passes a termination signal to every process the script started.
func forward(sig syscall.Signal, group int, pid1 bool) {
	if pid1 {
		_ = syscall.Kill(-1, sig) // everything in the pid namespace but us
		return
	}
	_ = syscall.Kill(-group, sig)
	for _, p := range descendants(os.Getpid()) {
		_ = syscall.Kill(p, sig)
	}
}

func killGroup(group int, pid1 bool) {
	if pid1 {
		_ = syscall.Kill(-1, syscall.SIGKILL)
		return
	}
	_ = syscall.Kill(-group, syscall.SIGKILL)
}

// killRest kills everything the script left behind and reaps it. As a
// subreaper (or pid 1), every process the script started ends up as a
// child, so "no child left" means nothing is left. It returns how many
// children were still there at the deadline.
func killRest(group int, pid1 bool) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		killGroup(group, pid1)
		if !pid1 {
			killDescendants(os.Getpid())
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.ECHILD) {
				return 0
			}
			if pid <= 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			return max(1, len(descendants(os.Getpid())))
		}
		time.Sleep(time.Millisecond)
	}
}

// mountPrivateProc makes mounts private to the namespace and mounts a /proc
// that shows only the sandbox's processes.
func mountPrivateProc() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	return nil
}

// LandlockABI is the Landlock ABI version the kernel offers (0: none).
func LandlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

var landlockPresets = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// minNetLandlock is the first ABI that restricts TCP.
const minNetLandlock = 4

// minScopeLandlock is the first ABI that scopes signals and abstract unix
// sockets to the domain.
const minScopeLandlock = 6

// applyLandlock restricts the helper (and so the script) to the spec's
// paths and, unless the network is granted, forbids TCP bind/connect (UDP
// too from ABI 10). It never silently applies less than it reports: the
// preset for the kernel's ABI is applied without best-effort downgrades,
// trying lower presets only when the kernel refuses one.
func applyLandlock(spec *helperSpec) (int, error) {
	abi := min(LandlockABI(), len(landlockPresets)-1)
	if abi < 1 {
		return 0, errors.New("not available in this kernel (or disabled at boot)")
	}
	if spec.NetByLandlock && !spec.Network && abi < minNetLandlock {
		return 0, fmt.Errorf("this kernel's Landlock ABI %d cannot restrict the network (needs %d)", abi, minNetLandlock)
	}
	var lastErr error
	for v := abi; v >= 1; v-- {
		cfg := landlockPresets[v]
		if spec.Network {
			cfg = landlock.Config{HandledAccessFS: cfg.HandledAccessFS, Scoped: cfg.Scoped}
		}
		rw := landlock.RWDirs(spec.ReadWrite...)
		if v >= 2 {
			rw = rw.WithRefer()
		}
		err := cfg.Restrict(
			landlock.RODirs(spec.ReadOnly...).IgnoreIfMissing(),
			landlock.ROFiles(spec.ReadOnlyFiles...).IgnoreIfMissing(),
			landlock.RWFiles(spec.DevFiles...).IgnoreIfMissing(),
			rw,
		)
		if err == nil {
			return v, nil
		}
		lastErr = err
		if spec.NetByLandlock && !spec.Network && v-1 < minNetLandlock {
			break
		}
	}
	return 0, lastErr
}

// dropCapabilities leaves the script no capability: empty bounding (where
// this process may change it), ambient, inheritable, permitted and
// effective sets. With no_new_privs (set with the seccomp filter or
// Landlock), executing a file cannot grant any back. It fails when the
// script would run as root with a bounding set it could not empty, since
// root gets the bounding set back on exec.
func dropCapabilities() error {
	boundingKept := false
	for c := 0; c <= 63; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break
		}
		if err != nil {
			if r, _ := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); r == 1 {
				boundingKept = true
			}
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return err
	}
	if boundingKept && os.Geteuid() == 0 {
		return errors.New("the bounding set cannot be emptied and the script would run as root")
	}
	return nil
}
