//go:build unix

package run

import (
	"os"
	"syscall"
)

// exitStatus is the exit code, 128+N for a process killed by signal N, -1 when unknown.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
