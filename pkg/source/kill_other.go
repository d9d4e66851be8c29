//go:build !unix

package source

import "os/exec"

// killGroup: elsewhere git alone is ended (exec.CommandContext's default).
func killGroup(*exec.Cmd) {}
