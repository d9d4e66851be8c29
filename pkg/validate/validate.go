// Package validate checks skills against the rules of the Agent Skills
// specification and skillctl's own rules, under a chosen profile.
package validate

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Profiles.
const (
	ProfileDefault      = "default"
	ProfileSpec         = "spec"
	ProfileClaudeCode   = "claude-code"
	ProfileAnthropicAPI = "anthropic-api"
)

// Finding is one problem found in a skill.
type Finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Hint     string `json:"hint,omitempty"`
}

// Options choose how strictly to validate.
type Options struct {
	// Profile is default, spec, claude-code or anthropic-api.
	Profile string
}

// Result is the validation of one skill folder.
type Result struct {
	// Dir is the skill folder; Name the skill's name when it could be read.
	Dir      string    `json:"path"`
	Name     string    `json:"name,omitempty"`
	Findings []Finding `json:"findings"`
}

// HasErrors reports whether any finding is an error.
func (r *Result) HasErrors() bool {
	for _, f := range r.Findings {
		if f.Severity == skill.SeverityError {
			return true
		}
	}
	return false
}

// Dir validates the skill folder dir.
func Dir(dir string, opts Options) *Result {
	res := &Result{Dir: dir, Findings: []Finding{}}
	s, err := skill.Load(dir, skill.LoadOptions{})
	if err != nil {
		res.Findings = append(res.Findings, loadFinding(dir, err))
		return res
	}
	res.Name = s.Name
	for _, d := range s.Diagnostics {
		sev := d.Severity
		if opts.Profile == ProfileSpec && d.Rule == "yaml-unquoted-colon" {
			sev = skill.SeverityError
		}
		res.Findings = append(res.Findings, Finding{Rule: d.Rule, Severity: sev, Message: d.Message,
			File: s.File, Line: d.Line, Column: d.Column, Hint: d.Hint})
	}
	if s.Doc.Field("name") == nil {
		res.Findings = append(res.Findings, Finding{Rule: "name-missing", Severity: skill.SeverityError,
			Message: "the required field name is missing", File: s.File, Line: 1, Column: 1,
			Hint: "add name: " + filepath.Base(dir)})
	}
	if strings.TrimSpace(s.Description) == "" {
		res.Findings = append(res.Findings, Finding{Rule: "description-missing", Severity: skill.SeverityError,
			Message: "the required field description is missing or empty", File: s.File, Line: 1, Column: 1,
			Hint: "add description: what the skill does and when to use it"})
	}
	return res
}

func loadFinding(dir string, err error) Finding {
	var pe *skill.ParseError
	if errors.As(err, &pe) {
		return Finding{Rule: pe.Rule, Severity: skill.SeverityError, Message: pe.Msg, File: pe.File,
			Line: pe.Line, Column: pe.Column, Hint: pe.Hint}
	}
	if errors.Is(err, skill.ErrNotFound) {
		return Finding{Rule: "skill-md-missing", Severity: skill.SeverityError, Message: "no SKILL.md in the folder",
			File: filepath.Join(dir, "SKILL.md"), Hint: "create SKILL.md with name and description frontmatter"}
	}
	return Finding{Rule: "unreadable", Severity: skill.SeverityError, Message: err.Error(), File: dir}
}
