package run

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompRules says what the script's seccomp filter refuses.
type seccompRules struct {
	// KeepGroup turns setsid and setpgid into no-ops that succeed, so that
	// every process the script starts stays in its process group and the
	// group kill reaches all of them (tiers without a pid namespace).
	KeepGroup bool `json:"keepGroup,omitempty"`
	// NoSockets refuses socket(AF_UNIX | AF_INET | AF_INET6, …) (EPERM):
	// without the network permission no path or abstract unix socket of the
	// host, and no IP address (loopback included), can be reached.
	// socketpair stays allowed.
	NoSockets bool `json:"noSockets,omitempty"`
}

// seccompArch is the audit architecture of this build, 0 where skillctl
// has no filter for it.
func seccompArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// SeccompAvailable says whether skillctl can filter system calls on this
// architecture.
func SeccompAvailable() bool { return seccompArch() != 0 }

// x32Bit marks x32 system calls on amd64, which the filter refuses.
const x32Bit = 0x40000000

// seccompProgram builds the filter. Always: a foreign system call
// architecture (i386 through int 0x80, x32) fails with ENOSYS, io_uring
// cannot be set up (it would bypass the filter), and TIOCSTI/TIOCLINUX
// (typing into a terminal) fail with EPERM. The rest per rules.
func seccompProgram(r seccompRules) ([]unix.SockFilter, error) {
	arch := seccompArch()
	if arch == 0 {
		return nil, fmt.Errorf("no system call filter for %s", runtime.GOARCH)
	}
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16
		offArg1 = 24
	)
	retErrno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	var prog []unix.SockFilter
	ld := func(off uint32) {
		prog = append(prog, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
	}
	ret := func(v uint32) { prog = append(prog, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: v}) }
	// jeq: if A == k, fall into the next instruction, else skip it.
	jeq := func(k uint32) {
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: 0, Jf: 1})
	}
	// jne: if A != k, fall into the next instruction, else skip it.
	jne := func(k uint32) {
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: 1, Jf: 0})
	}

	ld(offArch)
	jne(arch)
	ret(retErrno(unix.ENOSYS))
	ld(offNr)
	if runtime.GOARCH == "amd64" {
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: x32Bit, Jt: 0, Jf: 1})
		ret(retErrno(unix.ENOSYS))
	}
	jeq(uint32(unix.SYS_IO_URING_SETUP))
	ret(retErrno(unix.EPERM))
	if r.KeepGroup {
		// SECCOMP_RET_ERRNO with errno 0: the call returns 0 (success)
		// without doing anything.
		jeq(uint32(unix.SYS_SETSID))
		ret(unix.SECCOMP_RET_ERRNO)
		jeq(uint32(unix.SYS_SETPGID))
		ret(unix.SECCOMP_RET_ERRNO)
	}
	// ioctl(fd, TIOCSTI|TIOCLINUX, …)
	prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: uint32(unix.SYS_IOCTL), Jt: 0, Jf: 5})
	ld(offArg1)
	jeq(uint32(unix.TIOCSTI))
	ret(retErrno(unix.EPERM))
	jeq(uint32(unix.TIOCLINUX))
	ret(retErrno(unix.EPERM))
	if r.NoSockets {
		ld(offNr)
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: uint32(unix.SYS_SOCKET), Jt: 0, Jf: 7})
		ld(offArg0)
		for _, family := range []uint32{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6} {
			jeq(family)
			ret(retErrno(unix.EPERM))
		}
	}
	ret(unix.SECCOMP_RET_ALLOW)
	return prog, nil
}

// applySeccomp installs the filter on the calling thread (which must be the
// one that executes the script) after setting no_new_privs.
func applySeccomp(r seccompRules) error {
	prog, err := seccompProgram(r)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

// errNoSeccomp is why a tier that relies on the filter is not offered.
var errNoSeccomp = errors.New("skillctl has no system call filter for this architecture (" + runtime.GOARCH + ")")
