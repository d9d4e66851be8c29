package run

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func platformTiers() []tier { return []tier{seatbeltTier{}} }

func allTiers() []tier { return []tier{seatbeltTier{}, noneTier{}} }

const sandboxExec = "/usr/bin/sandbox-exec"

// seatbeltProfile denies everything but what a script needs: reading the
// system and the skill, writing the workdir and TMPDIR, and the network
// only when granted. Paths come in as parameters (-D).
const seatbeltProfile = `(version 1)
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow file-read-metadata)
(allow file-read*
  (literal "/")
  (subpath "/usr") (subpath "/bin") (subpath "/sbin")
  (subpath "/System") (subpath "/Library") (subpath "/private/etc")
  (subpath "/private/var/db/dyld") (subpath "/opt/homebrew") (subpath "/dev")
  (subpath (param "SKILL")) (literal (param "INPUT")))
(allow file-read* file-write*
  (subpath (param "WORKDIR")) (subpath (param "TMP"))
  (literal "/dev/null") (literal "/dev/zero"))
`

const seatbeltNetwork = `(allow network*)
(allow system-socket)
`

type seatbeltTier struct{}

func (seatbeltTier) name() string { return TierSeatbelt }

func (seatbeltTier) check(p *plan) error {
	if _, err := os.Stat(sandboxExec); err != nil {
		return errors.New("sandbox-exec is not available")
	}
	return nil
}

func (seatbeltTier) prepare(ctx context.Context, p *plan) (*launch, error) {
	profile := seatbeltProfile
	if p.network {
		profile += seatbeltNetwork
	}
	args := []string{"-p", profile,
		"-D", "SKILL=" + p.skillDir, "-D", "INPUT=" + p.inputFile,
		"-D", "WORKDIR=" + p.workdir, "-D", "TMP=" + p.tmp, "--"}
	cmd := exec.CommandContext(ctx, sandboxExec, append(args, p.argv...)...)
	cmd.Env = withEnv(p.env, TierSeatbelt)
	cmd.Dir = p.workdir
	return groupLaunch(cmd, Isolation{Tier: TierSeatbelt, Network: networkWord(p.network),
		Filesystem: "seatbelt profile: system folders and the skill folder read-only; the workdir and TMPDIR read-write; everything else denied",
		Processes:  "process group: SIGTERM, then SIGKILL to the group; a descendant that calls setsid can outlive the run"}), nil
}

type noneTier struct{}

func (noneTier) name() string { return TierNone }

func (noneTier) check(p *plan) error { return nil }

func (noneTier) prepare(ctx context.Context, p *plan) (*launch, error) {
	cmd := exec.CommandContext(ctx, p.argv[0], p.argv[1:]...)
	cmd.Env = withEnv(p.env, TierNone)
	cmd.Dir = p.workdir
	return groupLaunch(cmd, Isolation{Tier: TierNone, Unsandboxed: true, Network: "host",
		Filesystem: "unrestricted (your user's access)",
		Processes:  "process group: SIGTERM, then SIGKILL to the group; a descendant that calls setsid can outlive the run"}), nil
}

// groupLaunch runs cmd in a session of its own (no controlling terminal,
// one process group) and stops the group. Descriptors skillctl inherited
// without close-on-exec are marked so first: the script gets 0, 1 and 2.
func groupLaunch(cmd *exec.Cmd, iso Isolation) *launch {
	closeInheritedFiles()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	l := &launch{cmd: cmd, iso: iso}
	l.terminate = func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	l.kill = func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Background processes left in the group keep its id in use, so this
	// cannot hit a stranger.
	l.afterWait = l.kill
	return l
}

// closeInheritedFiles marks every descriptor of skillctl from 3 up
// close-on-exec (skillctl's own are already; inherited ones may not be).
func closeInheritedFiles() {
	d, err := os.Open("/dev/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
