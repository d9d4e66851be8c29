package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func platformTiers() []tier { return []tier{bwrapTier{}, namespacesTier{}, landlockTier{}} }

func allTiers() []tier { return append(platformTiers(), noneTier{}) }

// systemDirs are visible read-only in every tier: the usual system folders
// and the links merged-/usr systems keep at the top.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// maskedEtc are the password hashes under /etc, hidden in the bwrap tier.
var maskedEtc = []string{"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"}

// resolverDirs hold what /etc/resolv.conf points to on systemd machines.
var resolverDirs = []string{"/run/systemd/resolve"}

// Descriptions of what the tiers guarantee, for the isolation report.
const (
	fsBwrap     = "private root: /usr and /etc (and the /bin, /lib... links) read-only, the skill folder read-only, the workdir and TMPDIR read-write, private /tmp, /dev and /proc; nothing else exists"
	fsLandlock  = "Landlock: /usr, /etc, /bin, /lib..., /proc and the skill folder read-only; the workdir and TMPDIR read-write; everything else denied"
	procPidNS   = "pid namespace: SIGTERM, then SIGKILL to every process in it; the namespace ends with its first process"
	procReaper  = "process group (setsid and setpgid do nothing) under a subreaper supervisor: SIGTERM, then SIGKILL; checked that nothing is left"
	fsUnlimited = "unrestricted (your user's access)"
)

func helperSpecFor(p *plan) helperSpec {
	ro := append(append([]string(nil), systemDirs...), "/proc", p.skillDir)
	if p.network {
		ro = append(ro, resolverDirs...)
	}
	return helperSpec{
		Argv: p.argv, Dir: p.workdir, Network: p.network,
		ReadOnly:      ro,
		ReadOnlyFiles: []string{p.inputFile, "/dev/urandom", "/dev/random"},
		ReadWrite:     []string{p.workdir, p.tmp},
		DevFiles:      []string{"/dev/null", "/dev/zero", "/dev/full"},
	}
}

func checkSelf(p *plan) error {
	if p.self == "" {
		return errors.New("skillctl's own executable is unknown, so its sandbox helper cannot run")
	}
	if _, err := os.Stat(p.self); err != nil {
		return fmt.Errorf("sandbox helper %s: %w", p.self, err)
	}
	return nil
}

// helperCommand builds `skillctl __sandbox-exec SPEC` with its status pipe on fd 3.
func helperCommand(ctx context.Context, p *plan, spec helperSpec, tierName string) (*exec.Cmd, *os.File, *os.File, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := exec.CommandContext(ctx, p.self, HelperCommand, string(data))
	cmd.Args[0] = helperName
	cmd.Env = withEnv(p.env, tierName)
	cmd.Dir = p.workdir
	cmd.ExtraFiles = []*os.File{w}
	// A session of its own: no controlling terminal, one group to stop.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, r, w, nil
}

// --- bwrap ---

type bwrapTier struct{}

func (bwrapTier) name() string { return TierBwrap }

func bwrapPath() (string, error) {
	if p, err := exec.LookPath("bwrap"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/bin/bwrap", "/usr/local/bin/bwrap"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("bubblewrap (bwrap) is not installed")
}

func (bwrapTier) check(p *plan) error {
	if _, err := bwrapPath(); err != nil {
		return err
	}
	return checkSelf(p)
}

// helperInBwrap is where the helper is mounted inside the sandbox.
const helperInBwrap = "/run/skillctl/" + helperName

func bwrapArgs(p *plan, spec []byte) []string {
	a := []string{"--unshare-all"}
	if p.network {
		a = append(a, "--share-net")
	}
	a = append(a, "--die-with-parent", "--new-session", "--as-pid-1", "--clearenv", "--cap-drop", "ALL",
		"--ro-bind", "/usr", "/usr")
	for _, d := range systemDirs[1:] {
		if d == "/etc" {
			continue
		}
		if target, err := os.Readlink(d); err == nil {
			a = append(a, "--symlink", target, d)
		} else if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			a = append(a, "--ro-bind", d, d)
		}
	}
	a = append(a, "--ro-bind", "/etc", "/etc")
	for _, f := range maskedEtc {
		a = append(a, "--ro-bind-try", "/dev/null", f) // even a root user's script does not read them
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
	if p.network {
		for _, d := range resolverDirs {
			a = append(a, "--ro-bind-try", d, d)
		}
	}
	a = append(a,
		"--bind", p.workdir, p.workdir,
		"--bind", p.tmp, p.tmp,
		"--ro-bind", p.inputFile, p.inputFile,
		"--ro-bind", p.skillDir, p.skillDir,
		"--ro-bind", p.self, helperInBwrap,
		"--chdir", p.workdir)
	for _, kv := range withEnv(p.env, TierBwrap) {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	return append(a, "--info-fd", "4")
}

// bwrapCommand is what follows bwrap's options: the helper and its spec,
// which holds no secret.
func bwrapCommand(spec []byte) []string {
	return []string{"--", helperInBwrap, HelperCommand, string(spec)}
}

func (bwrapTier) prepare(ctx context.Context, p *plan) (*launch, error) {
	bw, err := bwrapPath()
	if err != nil {
		return nil, err
	}
	spec := helperSpecFor(p)
	spec.Landlock = landlockTry // a second wall where the kernel has it
	// bwrap brings the private loopback up; without the network
	// permission the seccomp filter leaves the script no IP or unix socket.
	spec.DropCaps = true
	if SeccompAvailable() {
		spec.Seccomp = &seccompRules{NoSockets: !p.network}
	}
	if !hasEnv(p.env, "PWD") {
		spec.DropEnv = []string{"PWD"} // bwrap sets it
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	infoR, infoW, err := os.Pipe()
	if err != nil {
		statusR.Close()
		statusW.Close()
		return nil, err
	}
	// Every argument goes through --args, so that no variable the script
	// is granted shows on bwrap's command line (/proc/PID/cmdline).
	args, err := argsFile(bwrapArgs(p, data))
	if err != nil {
		statusR.Close()
		statusW.Close()
		infoR.Close()
		infoW.Close()
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bw, append([]string{"--args", "5"}, bwrapCommand(data)...)...)
	cmd.Env = []string{}
	cmd.ExtraFiles = []*os.File{statusW, infoW, args}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	var helperPID atomic.Int64
	l := &launch{cmd: cmd, status: statusR,
		iso: Isolation{Tier: TierBwrap, Network: networkWord(p.network), Filesystem: fsBwrap, Processes: procPidNS}}
	l.afterStart = func() {
		statusW.Close()
		infoW.Close()
		args.Close()
		if cmd.Process != nil {
			var info struct {
				ChildPID int `json:"child-pid"`
			}
			if json.NewDecoder(infoR).Decode(&info) == nil && info.ChildPID > 0 {
				helperPID.Store(int64(info.ChildPID))
			}
		}
		infoR.Close()
	}
	l.terminate = func() {
		if pid := int(helperPID.Load()); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM) // the helper, pid 1 inside, passes it on
			return
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	l.kill = func() {
		if pid := int(helperPID.Load()); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL) // pid 1 gone: the kernel kills the namespace
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return l, nil
}

// argsFile holds NUL-separated arguments in an anonymous memory file, for
// bwrap --args.
func argsFile(args []string) (*os.File, error) {
	fd, err := unix.MemfdCreate("skillctl-bwrap-args", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("bwrap arguments: %w", err)
	}
	f := os.NewFile(uintptr(fd), "bwrap-args")
	var b strings.Builder
	for _, a := range args {
		b.WriteString(a)
		b.WriteByte(0)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func hasEnv(env []string, k string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, k+"=") {
			return true
		}
	}
	return false
}

// --- namespaces ---

type namespacesTier struct{}

func (namespacesTier) name() string { return TierNamespaces }

func readSysctl(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// userNamespacesBlocked says why user namespaces cannot be created, or "".
func userNamespacesBlocked() string {
	if readSysctl("/proc/sys/user/max_user_namespaces") == "0" {
		return "user namespaces are disabled (user.max_user_namespaces = 0)"
	}
	if os.Geteuid() != 0 && readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0" {
		return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)"
	}
	return ""
}

func (namespacesTier) check(p *plan) error {
	if err := checkSelf(p); err != nil {
		return err
	}
	if why := userNamespacesBlocked(); why != "" {
		return errors.New(why)
	}
	if LandlockABI() < 1 {
		return errors.New("needs Landlock, which this kernel does not offer")
	}
	if !SeccompAvailable() {
		return errNoSeccomp
	}
	return nil
}

func (namespacesTier) prepare(ctx context.Context, p *plan) (*launch, error) {
	spec := helperSpecFor(p)
	spec.Landlock, spec.MountProc, spec.DropCaps = landlockRequire, true, true
	spec.Seccomp = &seccompRules{NoSockets: !p.network}
	cmd, statusR, statusW, err := helperCommand(ctx, p, spec, TierNamespaces)
	if err != nil {
		return nil, err
	}
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS)
	if !p.network {
		flags |= syscall.CLONE_NEWNET
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: flags,
		// Root of its own user namespace, so that it can mount /proc; the
		// script gets no capabilities (the helper drops them).
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
	l := &launch{cmd: cmd, status: statusR,
		iso: Isolation{Tier: TierNamespaces, Network: networkWord(p.network), Filesystem: fsLandlock, Processes: procPidNS}}
	l.afterStart = func() { statusW.Close() }
	l.terminate = func() { _ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM) }
	l.kill = func() {
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return l, nil
}

// --- landlock ---

type landlockTier struct{}

func (landlockTier) name() string { return TierLandlock }

func (landlockTier) check(p *plan) error {
	if err := checkSelf(p); err != nil {
		return err
	}
	abi := LandlockABI()
	switch {
	case abi < 1:
		return errors.New("this kernel has no Landlock (or it is disabled at boot)")
	case !p.network && abi < minNetLandlock:
		return fmt.Errorf("this kernel's Landlock ABI %d cannot restrict the network (needs %d)", abi, minNetLandlock)
	case abi < minScopeLandlock:
		return fmt.Errorf("this kernel's Landlock ABI %d cannot keep the script from signalling skillctl and its supervisor or reaching abstract unix sockets (needs %d)", abi, minScopeLandlock)
	case !SeccompAvailable():
		return errNoSeccomp
	}
	return nil
}

func (landlockTier) prepare(ctx context.Context, p *plan) (*launch, error) {
	spec := helperSpecFor(p)
	spec.Landlock, spec.Subreaper, spec.NetByLandlock, spec.DropCaps = landlockRequire, true, true, true
	spec.Seccomp = &seccompRules{KeepGroup: true, NoSockets: !p.network}
	return reaperLaunch(ctx, p, spec, Isolation{Tier: TierLandlock, Network: networkWord(p.network),
		Filesystem: fsLandlock, Processes: procReaper})
}

// reaperLaunch runs the helper as a subreaper in skillctl's own namespaces.
func reaperLaunch(ctx context.Context, p *plan, spec helperSpec, iso Isolation) (*launch, error) {
	cmd, statusR, statusW, err := helperCommand(ctx, p, spec, iso.Tier)
	if err != nil {
		return nil, err
	}
	// SIGHUP when skillctl dies: the helper kills the tree before it goes.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGHUP
	l := &launch{cmd: cmd, status: statusR, iso: iso, hostGroup: true}
	l.afterStart = func() { statusW.Close() }
	l.terminate = func() { _ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM) }
	l.kill = func() {
		// The script's group first: with setsid and setpgid disabled it
		// holds every process the script started.
		if g := int(l.group.Load()); g > 0 {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
		killDescendants(cmd.Process.Pid) // the helper is still alive, so orphans stay below it
		// The supervisor reaps, verifies and reports; only if it does not
		// end by itself is it stopped too.
		time.AfterFunc(time.Second, func() {
			if !l.waited.Load() {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
		})
	}
	return l, nil
}

// --- none ---

type noneTier struct{}

func (noneTier) name() string { return TierNone }

func (noneTier) check(p *plan) error { return checkSelf(p) }

func (noneTier) prepare(ctx context.Context, p *plan) (*launch, error) {
	spec := helperSpecFor(p)
	spec.Landlock, spec.Subreaper, spec.Network = landlockOff, true, true
	if SeccompAvailable() {
		spec.Seccomp, spec.SeccompOptional = &seccompRules{KeepGroup: true}, true
	}
	return reaperLaunch(ctx, p, spec, Isolation{Tier: TierNone, Unsandboxed: true, Network: "host",
		Filesystem: fsUnlimited, Processes: procReaper})
}
