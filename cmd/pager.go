package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/internal/iostreams"
)

// pagedHelp makes help longer than the terminal go through a pager: $PAGER,
// else less (with LESS=FRX unless LESS is set: quit when the text fits,
// keep colors, leave the text on the screen). In a pipe, or when no pager
// can be started, help is printed as it is.
func pagedHelp(root *cobra.Command, ios *iostreams.IOStreams, getenv func(string) string) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if !ios.IsStdoutTTY() || ios.TerminalHeight() <= 0 {
			help(c, args)
			return
		}
		var buf bytes.Buffer
		c.SetOut(&buf)
		help(c, args)
		if c == root {
			c.SetOut(ios.Out)
		} else {
			c.SetOut(nil) // its parent's again
		}
		text := buf.String()
		if strings.Count(text, "\n") < ios.TerminalHeight() || !page(text, ios, getenv) {
			fmt.Fprint(ios.Out, text)
		}
	})
}

// pagerCommand is the pager to run: $PAGER, else less when it is
// installed; nil when there is none (PAGER=cat means none too).
func pagerCommand(getenv func(string) string) *exec.Cmd {
	p := strings.TrimSpace(getenv("PAGER"))
	if p == "cat" {
		return nil
	}
	if p == "" {
		less, err := exec.LookPath("less")
		if err != nil {
			return nil
		}
		c := exec.Command(less)
		if getenv("LESS") == "" {
			c.Env = append(os.Environ(), "LESS=FRX")
		}
		return c
	}
	if runtime.GOOS == "windows" {
		f := strings.Fields(p)
		return exec.Command(f[0], f[1:]...)
	}
	return exec.Command("/bin/sh", "-c", p)
}

// page shows text through the pager; false when none could be run.
func page(text string, ios *iostreams.IOStreams, getenv func(string) string) bool {
	c := pagerCommand(getenv)
	if c == nil {
		return false
	}
	c.Stdin = strings.NewReader(text)
	c.Stdout, c.Stderr = ios.Out, ios.ErrOut
	if err := c.Start(); err != nil {
		return false
	}
	_ = c.Wait() // quitting the pager early is fine
	return true
}
