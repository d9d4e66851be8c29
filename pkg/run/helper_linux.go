package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
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
}

// Landlock modes of the helper.
const (
	landlockRequire = "require"
	landlockTry     = "try"
	landlockOff     = "off"
)

// helperStatusFD is the helper's status pipe.
const helperStatusFD = 3

// HelperMain is the sandbox helper (skillctl __sandbox-exec SPEC). It
// confines itself (private /proc, subreaper, rlimits, Landlock, no
// capabilities), reports on fd 3, starts the script with its own
// environment and streams, forwards termination signals to every process
// the script started, kills whatever is left when the script exits, and
// returns the script's status (128+N for signal N, 127 when it could not
// be executed). A helper that could not confine itself returns an error
// (also reported on fd 3), and nothing ran.
func HelperMain(args []string) (int, error) {
	// Capabilities and the bounding set are per thread: drop them and fork
	// from the same one.
	runtime.LockOSThread()
	syscall.CloseOnExec(helperStatusFD) // the script must not inherit it
	status := os.NewFile(helperStatusFD, "status")
	report := func(st helperStatus) {
		if status == nil {
			return
		}
		b, _ := json.Marshal(st)
		_, _ = status.Write(append(b, '\n'))
		status.Close()
		status = nil
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
	setRlimits()
	abi := 0
	if spec.Landlock != landlockOff {
		v, err := applyLandlock(&spec)
		if err != nil && spec.Landlock == landlockRequire {
			return fail("landlock: %v", err)
		}
		abi = v
	}
	if spec.DropCaps {
		dropCapabilities()
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGCHLD)
	for _, k := range spec.DropEnv {
		os.Unsetenv(k)
	}
	pid, err := syscall.ForkExec(spec.Argv[0], spec.Argv, &syscall.ProcAttr{
		Dir: spec.Dir, Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		report(helperStatus{Stage: "start", Error: fmt.Sprintf("cannot execute %s: %v", spec.Argv[0], err)})
		return 127, nil
	}
	report(helperStatus{OK: true, Landlock: abi, Proc: proc})
	return supervise(pid, pid1, sigs), nil
}

// supervise reaps every child, forwards signals, and returns the script's
// status once it exited and nothing it started is left.
func supervise(main int, pid1 bool, sigs chan os.Signal) int {
	code := -1
	for {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
			if pid == main {
				code = waitCode(ws)
			}
		}
		if code >= 0 {
			killRest(pid1)
			return code
		}
		switch sig := (<-sigs).(syscall.Signal); sig {
		case syscall.SIGCHLD:
		case syscall.SIGHUP:
			// The parent is gone (parent-death signal): stop everything now.
			killRest(pid1)
		default:
			forward(sig, pid1)
		}
	}
}

func waitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// forward passes a termination signal to every process below the helper.
func forward(sig syscall.Signal, pid1 bool) {
	if pid1 {
		_ = syscall.Kill(-1, sig) // everything in the pid namespace but us
		return
	}
	for _, p := range descendants(os.Getpid()) {
		_ = syscall.Kill(p, sig)
	}
}

// killRest kills everything the script left behind and reaps it.
func killRest(pid1 bool) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if pid1 {
			_ = syscall.Kill(-1, syscall.SIGKILL)
		} else {
			killDescendants(os.Getpid())
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.ECHILD) {
				return
			}
			if pid <= 0 {
				break
			}
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

// Resource limits of sandboxed scripts.
const (
	rlimitFiles    = 4096
	rlimitFileSize = 1 << 30
)

// setRlimits: no core dumps, at most 4096 open files, no file over 1 GiB.
func setRlimits() {
	lower := func(res int, v uint64) {
		var r unix.Rlimit
		if unix.Getrlimit(res, &r) != nil {
			return
		}
		r.Cur, r.Max = min(r.Cur, v), min(r.Max, v)
		_ = unix.Setrlimit(res, &r)
	}
	lower(unix.RLIMIT_CORE, 0)
	lower(unix.RLIMIT_NOFILE, rlimitFiles)
	lower(unix.RLIMIT_FSIZE, rlimitFileSize)
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

// dropCapabilities leaves the script no way to gain capabilities: empty
// bounding, ambient and inheritable sets (best effort; without
// CAP_SETPCAP there is nothing to drop).
func dropCapabilities() {
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); errors.Is(err, unix.EINVAL) {
			break
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) == nil {
		data[0].Inheritable, data[1].Inheritable = 0, 0
		_ = unix.Capset(&hdr, &data[0])
	}
}
