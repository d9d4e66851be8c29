package run

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Run states, in the order a run goes through them.
const (
	StatePending   = "pending"
	StateRunning   = "running"
	StateCompleted = "completed"
	StateError     = "error"
)

// RecordsFile is the file in the state folder that run records are appended to.
const RecordsFile = "runs.jsonl"

// recordOutputCap bounds the output kept in a record.
const recordOutputCap = 64 << 10

// Record is one line of runs.jsonl, in the tool-state shape:
// {id, skill, mode, input, state:{status, time:{start,end}, output?, error?}}.
// Transitions lists every state the run went through, with its time.
type Record struct {
	ID          string         `json:"id"`
	Skill       string         `json:"skill"`
	SkillID     string         `json:"skillId"`
	Path        string         `json:"path"`
	Mode        string         `json:"mode"`
	Input       map[string]any `json:"input"`
	State       RecordState    `json:"state"`
	Transitions []Transition   `json:"transitions"`
}

// RecordState is the state of a run; times are Unix milliseconds.
type RecordState struct {
	Status   string          `json:"status"`
	Time     RecordTime      `json:"time"`
	Output   *string         `json:"output,omitempty"`
	Error    string          `json:"error,omitempty"`
	Metadata *RecordMetadata `json:"metadata,omitempty"`
}

// RecordTime is when a run started and ended (Unix ms; end 0 while running).
type RecordTime struct {
	Start int64 `json:"start"`
	End   int64 `json:"end,omitempty"`
}

// RecordMetadata is what a sandbox run adds to its record.
type RecordMetadata struct {
	ExitCode  int    `json:"exitCode"`
	Isolation string `json:"isolation,omitempty"`
	Workdir   string `json:"workdir,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Cause     string `json:"cause,omitempty"`
}

// Transition is one state change.
type Transition struct {
	Status string `json:"status"`
	Time   int64  `json:"time"`
}

func newRecord(s *skill.Skill, mode string, input map[string]any, now time.Time) *Record {
	if input == nil {
		input = map[string]any{}
	}
	r := &Record{ID: newRunID(now), Skill: s.Name, SkillID: s.ID, Path: s.Dir, Mode: mode, Input: input}
	r.State = RecordState{Status: StatePending, Time: RecordTime{Start: now.UnixMilli()}}
	r.Transitions = []Transition{{StatePending, now.UnixMilli()}}
	return r
}

func newRunID(now time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "run_" + now.UTC().Format("20060102T150405") + "_" + hex.EncodeToString(b[:])
}

func (r *Record) to(status string, t time.Time) {
	r.State.Status = status
	r.Transitions = append(r.Transitions, Transition{status, t.UnixMilli()})
}

func (r *Record) running(t time.Time) {
	r.State.Time.Start = t.UnixMilli()
	r.to(StateRunning, t)
}

func (r *Record) complete(t time.Time, rep *Report) {
	r.State.Time.End = t.UnixMilli()
	r.to(StateCompleted, t)
	r.attach(rep)
}

func (r *Record) fail(t time.Time, err error, code int, rep *Report) {
	r.State.Time.End = t.UnixMilli()
	r.State.Error = err.Error()
	r.to(StateError, t)
	r.attach(rep)
	if r.State.Metadata == nil {
		r.State.Metadata = &RecordMetadata{ExitCode: code}
	}
	r.State.Metadata.Cause = causeOf(err)
}

func (r *Record) attach(rep *Report) {
	if rep == nil {
		return
	}
	switch {
	case rep.Direct != nil:
		out := capString(rep.Direct.Content, recordOutputCap)
		r.State.Output = &out
	case rep.Sandbox != nil:
		sr := rep.Sandbox
		out := capString(sr.Output, recordOutputCap)
		r.State.Output = &out
		md := &RecordMetadata{ExitCode: sr.ExitCode, Isolation: sr.Isolation.Tier, Truncated: sr.Truncated}
		if sr.Workdir != nil {
			md.Workdir = *sr.Workdir
		}
		r.State.Metadata = md
	}
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeStart(s, n)]
}

// runeStart backs n off to the start of a UTF-8 sequence.
func runeStart(s string, n int) int {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// AppendRecord appends one record line to dir/runs.jsonl (created 0600 in a
// 0700 folder). The line is written with a single write on an O_APPEND file,
// so concurrent runs do not interleave.
func AppendRecord(dir string, r *Record) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode run record: %w", err)
	}
	line = append(line, '\n')
	f, err := os.OpenFile(filepath.Join(dir, RecordsFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// StateDir is the folder of skillctl's state: $XDG_STATE_HOME/skillctl, else
// HOME/.local/state/skillctl.
func StateDir(xdgStateHome, home string) string {
	if xdgStateHome != "" {
		return filepath.Join(xdgStateHome, "skillctl")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "skillctl")
}
