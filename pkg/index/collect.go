package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Duplicate is a skill name found at more than one path; the later path wins.
type Duplicate struct {
	Name string
	Kept string
	Lost string
}

// Collected is what Collect found.
type Collected struct {
	Items []Item
	// Problems are skills inside trees that could not be loaded.
	Problems []skill.Problem
	// Duplicates are names found twice; the later path wins.
	Duplicates []Duplicate
}

type found struct {
	dir, real string
	explicit  bool
}

// Collect loads the skills named by paths (relative ones are taken from cwd):
// a skill folder, a SKILL.md, or a tree, meaning every folder below it that
// holds a SKILL.md, skipping .git and node_modules and not descending into
// skill folders. A path that does not exist is an error wrapping
// skill.ErrNotFound; a skill named directly that cannot be loaded is an error;
// a skill inside a tree that cannot be loaded is reported in Problems. The
// same real folder is loaded once; when two skills share a name the later one wins.
func Collect(ctx context.Context, paths []string, cwd string, dropBody bool) (*Collected, error) {
	var dirs []found
	var problems []skill.Problem
	seen := map[string]bool{}
	add := func(dir, real string, explicit bool) {
		if seen[real] {
			return
		}
		seen[real] = true
		dirs = append(dirs, found{dir: dir, real: real, explicit: explicit})
	}
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, abs)
		}
		abs = filepath.Clean(abs)
		fi, err := os.Stat(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, &skill.NotFoundError{What: "path", Name: p}
			}
			return nil, fmt.Errorf("index %s: %w", p, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", p, err)
		}
		if !fi.IsDir() {
			base := filepath.Base(abs)
			if base != "SKILL.md" && base != "skill.md" {
				return nil, fmt.Errorf("%s is neither a skill folder, a SKILL.md nor a folder of skills: %w", p, skill.ErrInvalid)
			}
			add(filepath.Dir(abs), filepath.Dir(real), true)
			continue
		}
		if _, _, err := skill.SkillFileName(abs); err == nil {
			add(abs, real, true)
			continue
		}
		ents, err := os.ReadDir(abs)
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", p, err)
		}
		walkTree(ctx, abs, real, ents, map[string]bool{real: true},
			func(dir, real string) { add(dir, real, false) },
			func(dir string, err error) {
				problems = append(problems, skill.Problem{Path: dir, Source: skill.SourcePath,
					Reason: "cannot read folder: " + skill.ErrorReason(err)})
			})
	}

	// Load in parallel, keep the order found.
	type result struct {
		s   *skill.Skill
		err error
	}
	results := make([]result, len(dirs))
	workers := min(runtime.GOMAXPROCS(0), len(dirs))
	next := make(chan int, workers*4)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s, err := skill.Load(dirs[i].dir, skill.LoadOptions{Source: skill.SourcePath, DropBody: dropBody})
				results[i] = result{s, err}
			}
		}()
	}
	for i := range dirs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	out := &Collected{Problems: problems}
	byName := map[string]int{}
	for i, r := range results {
		d := dirs[i]
		if r.err != nil {
			if d.explicit {
				return nil, fmt.Errorf("skill %s cannot be loaded: %w", d.dir, r.err)
			}
			out.Problems = append(out.Problems, skill.Problem{Path: d.dir, Source: skill.SourcePath, Reason: skill.ErrorReason(r.err)})
			continue
		}
		it := Item{Skill: r.s, RealDir: d.real}
		if j, dup := byName[r.s.Name]; dup {
			out.Duplicates = append(out.Duplicates, Duplicate{Name: r.s.Name, Kept: d.dir, Lost: out.Items[j].Skill.Dir})
			out.Items[j] = it
			continue
		}
		byName[r.s.Name] = len(out.Items)
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// walkTree calls found for every skill folder below dir (not dir itself),
// given its entries, following symbolic links to folders once. Folders that
// cannot be read are reported to problem.
func walkTree(ctx context.Context, dir, real string, ents []os.DirEntry, visited map[string]bool,
	found func(dir, real string), problem func(dir string, err error)) {
	for _, e := range ents {
		if ctx.Err() != nil {
			return
		}
		name := e.Name()
		if name == ".git" || name == "node_modules" || name == "__MACOSX" {
			continue
		}
		sub := filepath.Join(dir, name)
		subReal := filepath.Join(real, name)
		switch {
		case e.IsDir():
		case e.Type()&fs.ModeSymlink != 0:
			r, err := filepath.EvalSymlinks(sub)
			if err != nil {
				continue // a broken link is not a folder
			}
			if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
				continue
			}
			subReal = r
		default:
			continue
		}
		if visited[subReal] {
			continue
		}
		visited[subReal] = true
		if _, _, err := skill.SkillFileName(sub); err == nil {
			found(sub, subReal)
			continue
		}
		subEnts, err := os.ReadDir(sub)
		if err != nil {
			problem(sub, err)
			continue
		}
		walkTree(ctx, sub, subReal, subEnts, visited, found, problem)
	}
}
