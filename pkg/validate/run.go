package validate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/skill"
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
				return nil, fmt.Errorf("%s: no such file or folder: %w", p, skill.ErrNotFound)
			}
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		inputs = append(inputs, input{display: p, abs: abs, info: fi})
	}
	r := &runner{pt: newProfileTable(v.Profile), ctx: ctx, progress: v.Progress, counts: make([]atomic.Int64, len(inputs))}
	workers := v.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := newPool()
	for i, in := range inputs {
		switch {
		case in.info.IsDir():
			real, err := filepath.EvalSymlinks(in.abs)
			if err != nil {
				real = in.abs
			}
			p.push(func(p *pool) { r.walkDir(p, i, in.display, in.abs, real) })
		default:
			p.push(func(p *pool) { r.file(i, in.display, in.abs) })
		}
	}
	p.run(workers)
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
	rep := &Report{Profile: r.pt.profile, Results: make([]*Result, len(r.results))}
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

	mu       sync.Mutex
	results  []indexedResult
	seenReal map[string]bool
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

// firstVisit records a folder reached through a symbolic link; false when it was seen before.
func (r *runner) firstVisit(real string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seenReal == nil {
		r.seenReal = map[string]bool{}
	}
	if r.seenReal[real] {
		return false
	}
	r.seenReal[real] = true
	return true
}

// skipTreeDir names folders a tree walk never enters.
func skipTreeDir(name string) bool { return name == ".git" || name == "node_modules" }

// walkDir validates dir when it holds SKILL.md, else looks for skills below it.
func (r *runner) walkDir(p *pool, input int, display, abs, real string) {
	if r.ctx.Err() != nil {
		return
	}
	// Most folders of a tree are skills: read SKILL.md straight away.
	data, err := readSkillFile(filepath.Join(abs, "SKILL.md"))
	if err == nil {
		t := osTarget(display, abs, nil)
		t.preName, t.preData = "SKILL.md", data
		if len(data) > skill.MaxSkillMDSize {
			t.preData = nil // validateTarget reports it
		}
		r.add(input, validateTarget(t, r.pt))
		return
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotRegular) {
		r.add(input, validateTarget(osTarget(display, abs, nil), r.pt))
		return
	}
	entries, err := readDirUnsorted(abs)
	if err != nil {
		res := &Result{Dir: display, Findings: []Finding{{Rule: "unreadable", Severity: r.pt.sev["unreadable"],
			Message: "cannot read the folder: " + errText(err), File: display, Hint: r.pt.hint["unreadable"]}}}
		r.add(input, res)
		return
	}
	for _, e := range entries {
		if n := e.Name(); (n == "SKILL.md" || n == "skill.md") && !e.IsDir() {
			r.add(input, validateTarget(osTarget(display, abs, entries), r.pt))
			return
		}
	}
	var jobs []func(*pool)
	for _, e := range entries {
		name := e.Name()
		if skipTreeDir(name) {
			continue
		}
		childAbs := filepath.Join(abs, name)
		childReal := filepath.Join(real, name)
		switch {
		case e.IsDir():
		case e.Type()&fs.ModeSymlink != 0:
			rp, err := filepath.EvalSymlinks(childAbs)
			if err != nil {
				continue
			}
			fi, err := os.Stat(rp)
			if err != nil || !fi.IsDir() {
				continue
			}
			sep := string(filepath.Separator)
			if rp == real || strings.HasPrefix(real+sep, rp+sep) || !r.firstVisit(rp) {
				continue // a link back up the tree, or a folder already walked
			}
			childReal = rp
		default:
			continue
		}
		childDisplay := filepath.Join(display, name)
		jobs = append(jobs, func(p *pool) { r.walkDir(p, input, childDisplay, childAbs, childReal) })
	}
	p.push(jobs...)
}

func readDirUnsorted(dir string) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if entries == nil {
		entries = []fs.DirEntry{}
	}
	return entries, err
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
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

// pool runs jobs on a fixed number of goroutines; a job may push more jobs.
type pool struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []func(*pool)
	pending int
}

func newPool() *pool {
	p := &pool{}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pool) push(jobs ...func(*pool)) {
	if len(jobs) == 0 {
		return
	}
	p.mu.Lock()
	p.queue = append(p.queue, jobs...)
	p.pending += len(jobs)
	p.mu.Unlock()
	if len(jobs) == 1 {
		p.cond.Signal()
	} else {
		p.cond.Broadcast()
	}
}

func (p *pool) run(workers int) {
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				p.mu.Lock()
				for len(p.queue) == 0 && p.pending > 0 {
					p.cond.Wait()
				}
				if p.pending == 0 {
					p.mu.Unlock()
					p.cond.Broadcast()
					return
				}
				job := p.queue[len(p.queue)-1]
				p.queue = p.queue[:len(p.queue)-1]
				p.mu.Unlock()
				job(p)
				p.mu.Lock()
				p.pending--
				last := p.pending == 0
				p.mu.Unlock()
				if last {
					p.cond.Broadcast()
				}
			}
		}()
	}
	wg.Wait()
}
