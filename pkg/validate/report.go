package validate

import (
	"fmt"
	"io"

	"github.com/skillctl/skillctl/pkg/findings"
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
	return findings.WriteJSON(w, r.JSON(strict))
}

// SummaryLine is the last line of the text output.
func (r *Report) SummaryLine(strict bool) string {
	s := r.Summary(strict)
	return fmt.Sprintf("%d skill(s) validated, %d failed", s.Skills, s.Failed)
}

// Findings lists every finding of the report, in order.
func (r *Report) Findings() []Finding {
	var out []Finding
	for _, res := range r.Results {
		out = append(out, res.Findings...)
	}
	return out
}

// WriteGitHub writes GitHub Actions workflow commands that annotate each
// finding's file and line in a pull request, then the summary line.
func (r *Report) WriteGitHub(w io.Writer, strict bool) error {
	if err := findings.WriteGitHub(w, r.Findings()); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, r.SummaryLine(strict))
	return err
}
