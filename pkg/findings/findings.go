// Package findings is what a check reports — a Finding with a rule, a
// severity and a place — and the writers every command prints findings
// with: text, JSON, GitHub Actions annotations and SARIF 2.1.0. validate
// and audit share it, so the same finding looks the same everywhere.
package findings

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/skillctl/skillctl/internal/safetext"
)

// Severities. validate uses error, warning and info; audit uses critical,
// high, medium, low and info. Off turns a rule off.
const (
	Critical = "critical"
	High     = "high"
	Medium   = "medium"
	Low      = "low"
	Error    = "error"
	Warning  = "warning"
	Info     = "info"
	Off      = "off"
)

// Finding is one problem found in one file.
type Finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Hint     string `json:"hint,omitempty"`
}

// Location is FILE:LINE:COL (FILE:LINE, or FILE, when those are unknown).
func (f Finding) Location() string {
	switch {
	case f.Line > 0 && f.Column > 0:
		return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	case f.Line > 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

// Count is the number of findings of severity sev.
func Count(fs []Finding, sev string) int {
	n := 0
	for _, f := range fs {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

// Only returns the findings of severity sev, in order.
func Only(fs []Finding, sev string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Severity == sev {
			out = append(out, f)
		}
	}
	return out
}

// TextStyle colours text output; nil functions leave text as it is.
type TextStyle struct {
	// Severity renders a severity word.
	Severity func(sev string) string
	// Hint renders a hint line ("hint: …").
	Hint func(s string) string
	// Hints prints each finding's hint on a line of its own.
	Hints bool
	// Prefix starts every finding's line.
	Prefix string
}

// WriteText writes one line per finding, `FILE:LINE:COL: SEVERITY RULE
// message`, each followed by its hint when st.Hints is set.
func WriteText(w io.Writer, fs []Finding, st TextStyle) error {
	for _, f := range fs {
		sev := f.Severity
		if st.Severity != nil {
			sev = st.Severity(sev)
		}
		if _, err := fmt.Fprintf(w, "%s%s: %s %s %s\n", st.Prefix, safetext.Line(f.Location()), sev, safetext.Line(f.Rule), safetext.Line(f.Message)); err != nil {
			return err
		}
		if st.Hints && f.Hint != "" {
			hint := "hint: " + safetext.Line(f.Hint)
			if st.Hint != nil {
				hint = st.Hint(hint)
			}
			if _, err := fmt.Fprintf(w, "    %s\n", hint); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteJSON writes v as one indented JSON document, without HTML escaping.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteGitHub writes GitHub Actions workflow commands that annotate each
// finding's file and line in a pull request.
func WriteGitHub(w io.Writer, fs []Finding) error {
	for _, f := range fs {
		cmd := "notice"
		switch f.Severity {
		case Error, Critical, High:
			cmd = "error"
		case Warning, Medium:
			cmd = "warning"
		}
		props := []string{"file=" + ghProperty(filepath.ToSlash(f.File))}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
			if f.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Column))
			}
		}
		props = append(props, "title="+ghProperty(f.Rule))
		// The log shows the message as a terminal would: no escape
		// sequences from a skill.
		msg := safetext.Text(f.Message)
		if f.Hint != "" {
			msg += "\n" + safetext.Text(f.Hint)
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(msg)); err != nil {
			return err
		}
	}
	return nil
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Relative returns fs with every file name made relative to top (the
// repository's top folder), so that annotations and code scanning find
// the files whatever folder the check ran in. A relative name is first
// resolved against cwd; a name outside top is left as it is.
func Relative(fs []Finding, cwd, top string) []Finding {
	out := make([]Finding, len(fs))
	for i, f := range fs {
		f.File = RelativePath(f.File, cwd, top)
		out[i] = f
	}
	return out
}

// RelativePath is one name of Relative.
func RelativePath(name, cwd, top string) string {
	if name == "" || top == "" {
		return name
	}
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return name
	}
	return rel
}
