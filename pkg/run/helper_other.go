//go:build !linux

package run

import (
	"fmt"
	"os"
	"runtime"
)

// HelperMain is the sandbox helper; it exists on Linux only.
func HelperMain(args []string) int {
	fmt.Fprintf(os.Stderr, "skillctl %s: not available on %s\n", HelperCommand, runtime.GOOS)
	return ExitSandbox
}
