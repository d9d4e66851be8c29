package run

import (
	"errors"
	"fmt"
	"time"

	"github.com/skillctl/skillctl/pkg/skill"
)

// DeniedError is a run refused before anything ran: a permission rule, a
// confirmation that could not be given, direct mode disabled.
type DeniedError struct {
	Skill  string
	Reason string
	// NeedsYes is set when a confirmation was needed and nobody could give it.
	NeedsYes bool
}

func (e *DeniedError) Error() string { return fmt.Sprintf("run %s: %s", e.Skill, e.Reason) }

// Unwrap makes the error match skill.ErrDenied.
func (e *DeniedError) Unwrap() error { return skill.ErrDenied }

// SandboxError is a sandbox that could not be set up at the isolation asked
// for. Nothing of the skill ran.
type SandboxError struct {
	Skill     string
	Requested string
	Reasons   []string // one per tier tried: "bwrap: ..."
}

func (e *SandboxError) Error() string {
	msg := fmt.Sprintf("run %s: no sandbox could be set up (isolation %s)", e.Skill, e.Requested)
	for _, r := range e.Reasons {
		msg += "\n  " + r
	}
	return msg + "\n  nothing was run"
}

// TimeoutError is a script stopped at its timeout.
type TimeoutError struct {
	Skill string
	After time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("run %s: timed out after %s (the script and everything it started were stopped)", e.Skill, e.After)
}

// ExitError is a script that ran and failed: skillctl exits with its code.
type ExitError struct {
	Skill string
	Code  int
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("run %s: the script exited with status %d", e.Skill, e.Code)
}

// StartError is a script that could not be started: no entrypoint, no
// interpreter, a file that is not executable.
type StartError struct {
	Skill string
	Err   error
}

func (e *StartError) Error() string { return fmt.Sprintf("run %s: %v", e.Skill, e.Err) }
func (e *StartError) Unwrap() error { return e.Err }

// causeOf names the kind of failure for the SkillError document.
func causeOf(err error) string {
	var (
		de *DeniedError
		se *SandboxError
		te *TimeoutError
		ee *ExitError
		me *MissingInputError
		ie *InputError
		st *StartError
	)
	switch {
	case errors.As(err, &de):
		return "denied"
	case errors.As(err, &se):
		return "sandbox"
	case errors.As(err, &te):
		return "timeout"
	case errors.As(err, &ee):
		return "exit"
	case errors.As(err, &me), errors.As(err, &ie):
		return "input"
	case errors.As(err, &st):
		return "start"
	}
	return "error"
}
