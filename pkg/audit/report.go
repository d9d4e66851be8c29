package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
)

// Severity order: a threshold fails at its level and above.
var rank = map[string]int{findings.Info: 1, findings.Low: 2, findings.Medium: 3, findings.High: 4, findings.Critical: 5}

// Levels are the severities, most severe first, and none.
var Levels = []string{findings.Critical, findings.High, findings.Medium, findings.Low, findings.Info, "none"}

// CheckLevel checks a --fail-on or audit.failOn value.
func CheckLevel(level string) error {
	if level == "none" || rank[level] > 0 {
		return nil
	}
	return fmt.Errorf("%q is not a severity: use %s", level, strings.Join(Levels, ", "))
}

// AtLeast reports whether severity sev is at or above level (never for none).
func AtLeast(sev, level string) bool {
	return level != "none" && rank[sev] >= rank[level] && rank[level] > 0
}

// Report is the audit of several skills.
type Report struct {
	Results []*Result `json:"skills"`
	// Accepted counts findings a baseline accepted (left out of Results).
	Accepted int `json:"accepted"`
}

// Findings is every finding, skill by skill.
func (r *Report) Findings() []Finding {
	var out []Finding
	for _, res := range r.Results {
		out = append(out, res.Findings...)
	}
	return out
}

// Shared is every finding in the shared shape (for text, github, sarif).
func (r *Report) Shared() []findings.Finding {
	var out []findings.Finding
	for _, f := range r.Findings() {
		out = append(out, f.Finding)
	}
	return out
}

// Failed reports whether a finding is at or above level.
func (r *Report) Failed(level string) bool {
	for _, f := range r.Findings() {
		if AtLeast(f.Severity, level) {
			return true
		}
	}
	return false
}

// Count is the number of findings of each severity.
func (r *Report) Count() map[string]int {
	out := map[string]int{}
	for _, f := range r.Findings() {
		out[f.Severity]++
	}
	return out
}

// Run audits what paths name: a skill folder, a SKILL.md, or a tree of
// skills (found as validate finds them), in parallel. A path that does not
// exist is an error wrapping skill.ErrNotFound, returned before anything
// is read.
func Run(ctx context.Context, paths []string, baseDir string) (*Report, error) {
	type job struct {
		dir, display string
	}
	var jobs []job
	for _, p := range paths {
		q := p
		if baseDir != "" && !filepath.IsAbs(q) {
			q = filepath.Join(baseDir, q)
		}
		fi, err := os.Stat(q)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, skill.Mark(fmt.Errorf("%s: no such file or folder", p), skill.ErrNotFound)
			}
			return nil, err
		}
		switch {
		case !fi.IsDir():
			if !skilltree.IsSkillFile(filepath.Base(q)) {
				return nil, fmt.Errorf("%s: not a skill folder, a SKILL.md or a tree of skills (archives and repositories: give them as a SOURCE)", p)
			}
			jobs = append(jobs, job{dir: filepath.Dir(q), display: filepath.Dir(p)})
		default:
			// A skill folder is found as itself (Rel "."), a tree as its skills.
			found, _, err := skilltree.Find(ctx, q, skilltree.Options{Layout: skilltree.Tree})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			if len(found) == 0 {
				return nil, skill.Mark(fmt.Errorf("%s: no skill found (no SKILL.md in it or below)", p), skill.ErrNotFound)
			}
			for _, f := range found {
				jobs = append(jobs, job{dir: f.Dir, display: filepath.Join(p, filepath.FromSlash(f.Rel))})
			}
		}
	}
	results := make([]*Result, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(1, len(jobs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = Dir(ctx, jobs[i].dir, jobs[i].display)
			}
		}()
	}
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", jobs[i].display, err)
		}
	}
	return &Report{Results: results}, nil
}

// Baseline is a set of accepted findings, by rule, file and fingerprint.
type Baseline map[string]bool

func baselineKey(rule, file, fingerprint string) string {
	return rule + "\x00" + filepath.ToSlash(file) + "\x00" + fingerprint
}

// ReadBaseline reads a baseline file: the JSON that `skillctl audit
// --format json` writes (its findings are accepted), or a JSON array of
// {rule, file, fingerprint}.
func ReadBaseline(p string) (Baseline, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, skill.Mark(fmt.Errorf("%s: no such baseline file", p), skill.ErrNotFound)
		}
		return nil, err
	}
	type entry struct {
		Rule        string `json:"rule"`
		File        string `json:"file"`
		Fingerprint string `json:"fingerprint"`
	}
	var entries []entry
	var rep struct {
		Skills []struct {
			Findings []entry `json:"findings"`
		} `json:"skills"`
	}
	if err := json.Unmarshal(data, &rep); err == nil && rep.Skills != nil {
		for _, s := range rep.Skills {
			entries = append(entries, s.Findings...)
		}
	} else if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("%s: not a baseline (the JSON of 'skillctl audit --format json', or an array of {rule, file, fingerprint}): %v", p, err)
	}
	b := Baseline{}
	for i, e := range entries {
		if e.Rule == "" || e.Fingerprint == "" {
			return nil, fmt.Errorf("%s: entry %d has no rule or fingerprint", p, i+1)
		}
		b[baselineKey(e.Rule, e.File, e.Fingerprint)] = true
	}
	return b, nil
}

// Apply leaves out the findings the baseline accepts, counting them.
func (r *Report) Apply(b Baseline) {
	for _, res := range r.Results {
		kept := res.Findings[:0]
		for _, f := range res.Findings {
			if b[baselineKey(f.Rule, f.File, f.Fingerprint)] {
				r.Accepted++
				continue
			}
			kept = append(kept, f)
		}
		res.Findings = kept
	}
}

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	for _, res := range r.Results {
		if res.Findings == nil {
			res.Findings = []Finding{}
		}
	}
	if r.Results == nil {
		r.Results = []*Result{}
	}
	return findings.WriteJSON(w, r)
}

// DocsURL is the page that documents every rule.
const DocsURL = "https://github.com/skillctl/skillctl/blob/main/docs/audit.md"

// SARIFTool describes the audit's rules for a SARIF log.
func SARIFTool(version string) findings.Tool {
	t := findings.Tool{Name: "skillctl audit", Version: version, InformationURI: "https://github.com/skillctl/skillctl"}
	for _, r := range Rules {
		t.Rules = append(t.Rules, findings.Rule{ID: r.ID, Summary: r.Message, Hint: r.Why + " " + r.Fix, Severity: r.Severity,
			HelpURI: DocsURL + "#rules"})
	}
	sort.Slice(t.Rules, func(i, j int) bool { return t.Rules[i].ID < t.Rules[j].ID })
	return t
}
