// Package iostreams knows where output goes: whether stdin, stdout and stderr
// are terminals, how wide the terminal is, and whether to use color.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"
)

// Color policies.
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// IOStreams holds the three standard streams and what is known about them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	width, height                  int
	// ColorPolicy is auto, always or never (--color).
	ColorPolicy string
	// NoColorEnv and ForceColorEnv mirror NO_COLOR and CLICOLOR_FORCE
	// (set by whoever knows the environment).
	NoColorEnv    bool
	ForceColorEnv bool
	// Quiet hides talk on stderr (progress, hints).
	Quiet bool
}

// System returns the process's streams.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ColorPolicy: ColorAuto}
	s.stdinTTY = term.IsTerminal(os.Stdin.Fd())
	s.stdoutTTY = term.IsTerminal(os.Stdout.Fd())
	s.stderrTTY = term.IsTerminal(os.Stderr.Fd())
	if s.stdoutTTY {
		if w, h, err := term.GetSize(os.Stdout.Fd()); err == nil && w > 0 {
			s.width, s.height = w, h
		}
	}
	if s.width == 0 {
		if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
			s.width = c
		}
	}
	return s
}

// Test returns streams backed by buffers: stdin, stdout, stderr.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, ColorPolicy: ColorAuto, width: 80}, in, out, errOut
}

// SetTTY marks all three streams as terminals (or not), for tests.
func (s *IOStreams) SetTTY(tty bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = tty, tty, tty
}

// SetStdinTTY, SetStdoutTTY and SetStderrTTY set one stream, for tests.
func (s *IOStreams) SetStdinTTY(tty bool)  { s.stdinTTY = tty }
func (s *IOStreams) SetStdoutTTY(tty bool) { s.stdoutTTY = tty }
func (s *IOStreams) SetStderrTTY(tty bool) { s.stderrTTY = tty }

// SetWidth sets the terminal width, for tests.
func (s *IOStreams) SetWidth(w int) { s.width = w }

// IsStdinTTY, IsStdoutTTY and IsStderrTTY report whether a stream is a terminal.
func (s *IOStreams) IsStdinTTY() bool  { return s.stdinTTY }
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// CanPrompt reports whether the user can be asked a question.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stderrTTY }

// TerminalWidth is the width of stdout's terminal (80 when unknown).
func (s *IOStreams) TerminalWidth() int {
	if s.width <= 0 {
		return 80
	}
	return s.width
}

// TerminalHeight is the number of lines of stdout's terminal (0 when
// stdout is not one, or its size is unknown).
func (s *IOStreams) TerminalHeight() int { return s.height }

// SetHeight sets the terminal height (for tests).
func (s *IOStreams) SetHeight(h int) { s.height = h }

// ColorEnabled reports whether output to stdout (or stderr, when stderr is
// set) should carry color: --color always/never decide; in auto, NO_COLOR
// turns it off, CLICOLOR_FORCE on, else only on a terminal.
func (s *IOStreams) ColorEnabled(stderr bool) bool {
	switch s.ColorPolicy {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	if s.NoColorEnv {
		return false
	}
	if s.ForceColorEnv {
		return true
	}
	if stderr {
		return s.stderrTTY
	}
	return s.stdoutTTY
}
