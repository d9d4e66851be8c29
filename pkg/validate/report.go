package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Summary counts a report's skills and findings.
type Summary struct {
	Skills   int `json:"skills"`
	Failed   int `json:"failed"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Summary counts the report; with strict, skills with warnings fail too.
func (r *Report) Summary(strict bool) Summary {
	var s Summary
	for _, res := range r.Results {
		s.Skills++
		if res.Failed(strict) {
			s.Failed++
		}
		s.Errors += res.Count(Error)
		s.Warnings += res.Count(Warning)
		s.Infos += res.Count(Info)
	}
	return s
}

// Failed reports whether any skill fails.
func (r *Report) Failed(strict bool) bool { return r.Summary(strict).Failed > 0 }

// WithoutInfo returns a copy of the report without info findings (--quiet).
func (r *Report) WithoutInfo() *Report {
	out := &Report{Profile: r.Profile, Results: make([]*Result, len(r.Results))}
	for i, res := range r.Results {
		cp := *res
		cp.Findings = make([]Finding, 0, len(res.Findings))
		for _, f := range res.Findings {
			if f.Severity != Info {
				cp.Findings = append(cp.Findings, f)
			}
		}
		out.Results[i] = &cp
	}
	return out
}

// JSONReport is the JSON shape of a report (validate --format json); see docs/validate.md.
type JSONReport struct {
	Profile string       `json:"profile"`
	Strict  bool         `json:"strict"`
	Valid   bool         `json:"valid"`
	Summary Summary      `json:"summary"`
	Skills  []JSONResult `json:"skills"`
}

// JSONResult is one skill in a JSONReport.
type JSONResult struct {
	Path     string    `json:"path"`
	File     string    `json:"file,omitempty"`
	Name     string    `json:"name,omitempty"`
	Valid    bool      `json:"valid"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Infos    int       `json:"infos"`
	Findings []Finding `json:"findings"`
}

// JSON builds the JSON shape of the report.
func (r *Report) JSON(strict bool) JSONReport {
	sum := r.Summary(strict)
	out := JSONReport{Profile: r.Profile, Strict: strict, Valid: sum.Failed == 0, Summary: sum,
		Skills: make([]JSONResult, 0, len(r.Results))}
	for _, res := range r.Results {
		fs := res.Findings
		if fs == nil {
			fs = []Finding{}
		}
		out.Skills = append(out.Skills, JSONResult{Path: res.Dir, File: res.File, Name: res.Name,
			Valid: !res.Failed(strict), Errors: res.Count(Error), Warnings: res.Count(Warning), Infos: res.Count(Info),
			Findings: fs})
	}
	return out
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer, strict bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON(strict))
}

// SummaryLine is the last line of the text output.
func (r *Report) SummaryLine(strict bool) string {
	s := r.Summary(strict)
	return fmt.Sprintf("%d skill(s) validated, %d failed", s.Skills, s.Failed)
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

// WriteGitHub writes GitHub Actions workflow commands that annotate each
// finding's file and line in a pull request, then the summary line.
func (r *Report) WriteGitHub(w io.Writer, strict bool) error {
	for _, res := range r.Results {
		for _, f := range res.Findings {
			cmd := "notice"
			switch f.Severity {
			case Error:
				cmd = "error"
			case Warning:
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
			msg := f.Message
			if f.Hint != "" {
				msg += "\n" + f.Hint
			}
			if _, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(msg)); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w, r.SummaryLine(strict))
	return err
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
