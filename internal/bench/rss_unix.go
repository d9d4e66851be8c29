//go:build unix

package main

import (
	"os"
	"syscall"
)

// peakRSS is a finished process's peak resident set in KiB (bytes on macOS).
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return int64(ru.Maxrss)
	}
	return 0
}
