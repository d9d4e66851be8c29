package run

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// evalFilter runs a seccomp program (the few BPF instructions it uses) on
// one system call, as the kernel would, and returns the action.
func evalFilter(t *testing.T, prog []unix.SockFilter, arch uint32, nr int, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], uint32(int32(nr)))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			if acc == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K:
			if acc >= in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %#x is not understood by this test", in.Code)
		}
	}
	t.Fatal("the program fell off its end")
	return 0
}

// The system call filter of the second stage, call by call.
func TestSeccompProgram(t *testing.T) {
	if !SeccompAvailable() {
		t.Skipf("no filter for %s", runtime.GOARCH)
	}
	arch := seccompArch()
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	strict, err := seccompProgram(seccompRules{KeepGroup: true, NoSockets: true})
	require.NoError(t, err)
	plain, err := seccompProgram(seccompRules{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		prog []unix.SockFilter
		arch uint32
		nr   int
		args []uint64
		want uint32
	}{
		{"a foreign system call ABI (i386 through int 0x80)", plain, unix.AUDIT_ARCH_I386, 20, nil, errno(unix.ENOSYS)},
		{"io_uring_setup", plain, arch, unix.SYS_IO_URING_SETUP, nil, errno(unix.EPERM)},
		{"TIOCSTI", plain, arch, unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, errno(unix.EPERM)},
		{"TIOCSTI with high bits the kernel drops", plain, arch, unix.SYS_IOCTL, []uint64{0, 1<<32 | unix.TIOCSTI}, errno(unix.EPERM)},
		{"TIOCLINUX", plain, arch, unix.SYS_IOCTL, []uint64{0, unix.TIOCLINUX}, errno(unix.EPERM)},
		{"another ioctl", plain, arch, unix.SYS_IOCTL, []uint64{0, unix.TCGETS}, allow},
		{"setsid without KeepGroup", plain, arch, unix.SYS_SETSID, nil, allow},
		{"setsid with KeepGroup: success, no effect", strict, arch, unix.SYS_SETSID, nil, errno(0)},
		{"setpgid with KeepGroup", strict, arch, unix.SYS_SETPGID, []uint64{0, 0}, errno(0)},
		{"a unix socket without the network", strict, arch, unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, errno(unix.EPERM)},
		{"an IPv4 socket without the network", strict, arch, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_DGRAM}, errno(unix.EPERM)},
		{"an IPv6 socket without the network", strict, arch, unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_STREAM}, errno(unix.EPERM)},
		{"a netlink socket", strict, arch, unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW}, allow},
		{"a unix socket with the network", plain, arch, unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, allow},
		{"socketpair", strict, arch, unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, allow},
		{"read", strict, arch, unix.SYS_READ, nil, allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, evalFilter(t, tc.prog, tc.arch, tc.nr, tc.args...))
		})
	}
	if runtime.GOARCH == "amd64" {
		assert.Equal(t, errno(unix.ENOSYS), evalFilter(t, strict, arch, x32Bit|unix.SYS_SETSID), "x32 system calls")
	}
}
