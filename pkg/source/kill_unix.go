//go:build unix

package source

import (
	"os/exec"
	"syscall"
)

// killGroup makes git and what it starts (remote helpers, ssh) one process
// group, ended together at a timeout or Ctrl-C.
func killGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error {
		if c.Process == nil {
			return nil
		}
		return syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}
