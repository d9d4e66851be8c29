package validate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/catalog"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
)

// Validator validates what paths name: skill folders, SKILL.md files, trees
// holding skills, and skill archives (read in place).
type Validator struct {
	Options
	// BaseDir resolves relative paths (default: the working folder).
	BaseDir string
	// Workers bounds the parallel work (default: GOMAXPROCS).
	Workers int
	// Progress, when set, is called after each skill with the number
	// validated so far. It is called from several goroutines.
	Progress func(done int)
}

// Report is the outcome of validating one or more inputs.
type Report struct {
	Profile string `json:"profile"`
	// Results holds one result per skill, in the order of the inputs, then by path.
	Results []*Result `json:"skills"`
	// Skipped are symbolic links in trees that were not followed (see
	// pkg/skilltree); they are warned about, not validated.
	Skipped []catalog.Problem `json:"-"`
	// SrcRoot is the folder relative file names are relative to, when
	// RelativeTo made them so ("" otherwise).
	SrcRoot string `json:"-"`
	// pt is the severity of each rule the report was made with.
	pt *profileTable
}

// Run validates every input. A path that does not exist is an error wrapping
// skill.ErrNotFound, returned before anything is validated. Problems with
// the skills themselves, including unreadable or unsafe archives, are
// findings in the report.
func (v *Validator) Run(ctx context.Context, paths []string) (*Report, error) {
	type input struct {
		display, abs string
		info         fs.FileInfo
	}
	inputs := make([]input, 0, len(paths))
	for _, p := range paths {
		q := p
		if v.BaseDir != "" && !filepath.IsAbs(q) {
			q = filepath.Join(v.BaseDir, q)
		}
		abs, err := filepath.Abs(q)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, skill.Mark(fmt.Errorf("%s: no such file or folder", p), skill.ErrNotFound)
			}
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		inputs = append(inputs, input{display: p, abs: abs, info: fi})
	}
	r := &runner{pt: newProfileTable(v.Profile, v.Levels), ctx: ctx, progress: v.Progress, counts: make([]atomic.Int64, len(inputs))}
	var skipped []catalog.Problem
	var skippedMu sync.Mutex
	for i, in := range inputs {
		if !in.info.IsDir() {
			r.file(i, in.display, in.abs)
			continue
		}
		err := skilltree.Walk(ctx, in.abs, skilltree.Options{Layout: skilltree.Tree, Workers: v.Workers, GitIgnore: true, Exclude: v.Exclude},
			func(f *skilltree.Found) {
				if f.Skipped() {
					skippedMu.Lock()
					skipped = append(skipped, catalog.Problem{Path: filepath.Join(in.display, filepath.FromSlash(f.Rel)),
						Source: skill.SourcePath, Reason: skill.ErrorReason(f.Err)})
					skippedMu.Unlock()
					return
				}
				r.found(i, in.display, f)
			})
		if err != nil && ctx.Err() == nil {
			r.add(i, &Result{Dir: in.display, Findings: []Finding{{Rule: "unreadable", Severity: r.pt.sev["unreadable"],
				Message: "cannot read the folder: " + skill.OSReason(errors.Unwrap(err)), File: in.display, Hint: r.pt.hint["unreadable"]}}})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, in := range inputs {
		if in.info.IsDir() && r.counts[i].Load() == 0 {
			// A folder with no skill anywhere below it.
			t := osTarget(in.display, in.abs, []fs.DirEntry{})
			r.add(i, validateTarget(t, r.pt))
		}
	}
	sort.SliceStable(r.results, func(a, b int) bool {
		x, y := r.results[a], r.results[b]
		if x.input != y.input {
			return x.input < y.input
		}
		return x.res.Dir < y.res.Dir
	})
	sort.Slice(skipped, func(a, b int) bool { return skipped[a].Path < skipped[b].Path })
	rep := &Report{Profile: r.pt.profile, pt: r.pt, Results: make([]*Result, len(r.results)), Skipped: skipped}
	for i, x := range r.results {
		rep.Results[i] = x.res
	}
	return rep, nil
}

type indexedResult struct {
	input int
	res   *Result
}

type runner struct {
	pt       *profileTable
	ctx      context.Context
	progress func(int)
	counts   []atomic.Int64
	done     atomic.Int64

	mu      sync.Mutex
	results []indexedResult
}

func (r *runner) add(input int, res *Result) {
	r.counts[input].Add(1)
	r.mu.Lock()
	r.results = append(r.results, indexedResult{input, res})
	r.mu.Unlock()
	n := r.done.Add(1)
	if r.progress != nil {
		r.progress(int(n))
	}
}

// found validates a skill folder the tree walk found, or reports why it
// could not be read.
func (r *runner) found(input int, display string, f *skilltree.Found) {
	disp := filepath.Join(display, filepath.FromSlash(f.Rel))
	t := osTarget(disp, f.Dir, nil)
	switch {
	case f.Err == nil:
		t.preName, t.preData = filepath.Base(f.File), f.Data
	case f.File == "":
		r.add(input, &Result{Dir: disp, Findings: []Finding{{Rule: "unreadable", Severity: r.pt.sev["unreadable"],
			Message: skill.ErrorReason(f.Err), File: disp, Hint: r.pt.hint["unreadable"]}}})
		return
	}
	r.add(input, validateTarget(t, r.pt))
}

// file validates a file input: a SKILL.md (its folder is validated), or an archive.
func (r *runner) file(input int, display, abs string) {
	base := filepath.Base(abs)
	if strings.EqualFold(base, "SKILL.md") {
		dir := filepath.Dir(display)
		r.add(input, validateTarget(osTarget(dir, filepath.Dir(abs), nil), r.pt))
		return
	}
	targets, err := archiveTargets(r.ctx, abs, display)
	switch {
	case errors.Is(err, archive.ErrNotArchive):
		res := notASkill(r.pt, display)
		if msg := err.Error(); strings.Contains(msg, "; this is ") {
			res.Findings[0].Message += " (" + msg + ")"
		}
		r.add(input, res)
		return
	case err != nil:
		r.add(input, &Result{Dir: display, Findings: []Finding{{Rule: "archive-unsafe", Severity: r.pt.sev["archive-unsafe"],
			Message: "cannot validate the archive: " + err.Error() + "; nothing was extracted", File: display,
			Hint: r.pt.hint["archive-unsafe"]}}})
		return
	}
	if len(targets) == 0 {
		r.add(input, &Result{Dir: display, Findings: []Finding{{Rule: "skill-md-missing", Severity: r.pt.sev["skill-md-missing"],
			Message: "the archive holds no SKILL.md", File: display, Hint: RuleByID("skill-md-missing").Hint}}})
		return
	}
	for _, t := range targets {
		r.add(input, validateTarget(t, r.pt))
	}
}
