//go:build !unix

package run

import "os"

// exitStatus is the exit code, -1 when unknown.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}
