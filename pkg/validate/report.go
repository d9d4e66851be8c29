package validate

import (
	"fmt"
	"io"
	"sort"
	"strconv"

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
	out := &Report{Profile: r.Profile, pt: r.pt, Skipped: r.Skipped, SrcRoot: r.SrcRoot, Results: make([]*Result, len(r.Results))}
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
	Profile string  `json:"profile"`
	Strict  bool    `json:"strict"`
	Valid   bool    `json:"valid"`
	Summary Summary `json:"summary"`
	// Rules counts the findings per rule (as the text output's last lines).
	Rules  []RuleCount  `json:"rules"`
	Skills []JSONResult `json:"skills"`
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
		Rules: r.RuleCounts(), Skills: make([]JSONResult, 0, len(r.Results))}
	if out.Rules == nil {
		out.Rules = []RuleCount{}
	}
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

// RuleCount is how many findings one rule made in a report.
type RuleCount struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Count    int    `json:"count"`
}

// RuleCounts counts the findings per rule and severity: errors first,
// then warnings, then infos, the most frequent first within each.
func (r *Report) RuleCounts() []RuleCount {
	idx := map[[2]string]int{}
	var out []RuleCount
	for _, res := range r.Results {
		for _, f := range res.Findings {
			k := [2]string{f.Rule, f.Severity}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, RuleCount{Rule: f.Rule, Severity: f.Severity})
			}
			out[i].Count++
		}
	}
	rank := map[string]int{Error: 0, Warning: 1, Info: 2}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank[a.Severity] != rank[b.Severity] {
			return rank[a.Severity] < rank[b.Severity]
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Rule < b.Rule
	})
	return out
}

// WriteRuleCounts writes the per-rule summary of the text output: a
// heading, then one line per rule ("  COUNT  SEVERITY  RULE"); nothing
// when there are no findings.
func (r *Report) WriteRuleCounts(w io.Writer) error {
	counts := r.RuleCounts()
	if len(counts) == 0 {
		return nil
	}
	width := 1
	for _, c := range counts {
		width = max(width, len(strconv.Itoa(c.Count)))
	}
	if _, err := fmt.Fprintln(w, "\nFindings by rule:"); err != nil {
		return err
	}
	for _, c := range counts {
		if _, err := fmt.Fprintf(w, "  %*d  %-7s  %s\n", width, c.Count, c.Severity, c.Rule); err != nil {
			return err
		}
	}
	return nil
}

// RelativeTo returns a copy of the report whose file names are relative to
// top, the repository's top folder (names are resolved against cwd
// first); SARIF then names top as SRCROOT. An empty top changes nothing.
func (r *Report) RelativeTo(cwd, top string) *Report {
	if top == "" {
		return r
	}
	out := &Report{Profile: r.Profile, pt: r.pt, Skipped: r.Skipped, SrcRoot: top, Results: make([]*Result, len(r.Results))}
	for i, res := range r.Results {
		cp := *res
		cp.Dir = findings.RelativePath(res.Dir, cwd, top)
		cp.File = findings.RelativePath(res.File, cwd, top)
		cp.Findings = findings.Relative(res.Findings, cwd, top)
		out.Results[i] = &cp
	}
	return out
}
