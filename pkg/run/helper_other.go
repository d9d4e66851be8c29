//go:build !linux

package run

import (
	"fmt"
	"runtime"
)

// HelperMain is the sandbox helper; it exists on Linux only.
func HelperMain(args []string) (int, error) {
	return 0, fmt.Errorf("skillctl %s: not available on %s", HelperCommand, runtime.GOOS)
}
