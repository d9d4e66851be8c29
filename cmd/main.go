// Package cmd is skillctl's command-line glue: cobra commands that parse
// flags, call into pkg/*, and print results.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/safetext"
	"github.com/skillctl/skillctl/pkg/run"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Exit codes (SPEC §4).
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitNotFound    = 3
	ExitDenied      = 4
	ExitTimeout     = 124
	ExitSandbox     = 125
	ExitInterrupted = 130
)

// ExitCoder is an error that carries its own exit code (a skill's own exit
// status, a timeout, a sandbox that could not be set up).
type ExitCoder interface {
	ExitCode() int
}

// FlagError is a mistake in flags or arguments: it prints the usage line.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf builds a FlagError.
func FlagErrorf(format string, a ...any) error { return &FlagError{Err: fmt.Errorf(format, a...)} }

// SilentError exits with a code without printing anything more (the command
// already said what went wrong).
type SilentError struct{ Code int }

func (e *SilentError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode implements ExitCoder.
func (e *SilentError) ExitCode() int { return e.Code }

// Main runs skillctl with the process's arguments and streams and returns the exit code.
func Main() int {
	return Run(context.Background(), os.Args[1:], iostreams.System(), os.Getenv)
}

// exitNow ends the process at a second interrupt (replaceable in tests).
var exitNow = os.Exit

// cancelOnSignal cancels the returned context at the first Ctrl-C or
// SIGTERM, so that the running operation stops and cleans up; a second one
// ends the process at once with ExitInterrupted.
func cancelOnSignal(ctx context.Context, errOut io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(errOut, "Interrupted again: stopping now.")
			exitNow(ExitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// Run runs skillctl with the given arguments, streams and environment.
func Run(ctx context.Context, args []string, ios *iostreams.IOStreams, getenv func(string) string) int {
	ctx, stop := cancelOnSignal(ctx, ios.ErrOut)
	defer stop()
	if getenv == nil {
		getenv = os.Getenv
	}
	ios.NoColorEnv = getenv("NO_COLOR") != ""
	if v := getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		ios.ForceColorEnv = true
	}
	f := NewFactory(ios, getenv)
	root := NewRootCmd(f)
	pagedHelp(root, ios, getenv)
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		plainFlagUsages(root)
	}
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	err = commandError(root, err)
	code := ExitCodeOf(err)
	if ctx.Err() != nil && code != ExitTimeout {
		code = ExitInterrupted
	}
	var silent *SilentError
	switch {
	case errors.As(err, &silent):
	case code == ExitInterrupted && errors.Is(err, context.Canceled):
		fmt.Fprintln(ios.ErrOut, "Interrupted.")
	default:
		fmt.Fprintf(ios.ErrOut, "Error: %s\n", safetext.Text(err.Error()))
		var fe *FlagError
		// Only a mistake in flags or arguments shows the usage line: a
		// script that exits 2 is not one.
		if (errors.As(err, &fe) || isCobraUsageError(err)) && cmd != nil {
			fmt.Fprintf(ios.ErrOut, "Usage: %s\nRun '%s --help' for more.\n", cmd.UseLine(), cmd.CommandPath())
		}
	}
	return code
}

// ExitCodeOf maps an error to skillctl's exit codes in one place: pkg/*
// returns typed errors and sentinels, and only this function knows codes.
func ExitCodeOf(err error) int {
	var (
		ec  ExitCoder
		fe  *FlagError
		ee  *run.ExitError
		te  *run.TimeoutError
		se  *run.SandboxError
		ie  *run.InputError
		mie *run.MissingInputError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ec):
		return ec.ExitCode()
	case errors.As(err, &ee):
		return ee.Code // the script ran and failed: its own status
	case errors.As(err, &te):
		return ExitTimeout
	case errors.As(err, &se):
		return ExitSandbox
	case errors.As(err, &fe), errors.As(err, &ie), errors.As(err, &mie):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.Is(err, skill.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, skill.ErrDenied):
		return ExitDenied
	case isCobraUsageError(err):
		return ExitUsage
	}
	return ExitFailure
}
