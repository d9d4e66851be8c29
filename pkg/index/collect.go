package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillctl/skillctl/pkg/catalog"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
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
	Problems []catalog.Problem
	// Duplicates are names found twice; the later path wins.
	Duplicates []Duplicate
}

// Collect loads the skills named by paths (relative ones are taken from cwd):
// a skill folder, a SKILL.md, or a tree of skills, found as pkg/skilltree
// finds them. A path that does not exist is an error wrapping
// skill.ErrNotFound; a skill named directly that cannot be loaded is an error;
// a skill inside a tree that cannot be loaded is reported in Problems. The
// same real folder is loaded once; when two skills share a name the later
// path wins.
func Collect(ctx context.Context, paths []string, cwd string, dropBody bool) (*Collected, error) {
	roots := make([]catalog.Root, 0, len(paths))
	named := map[string]bool{} // skill folders named directly
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
		switch {
		case !fi.IsDir() && !skilltree.IsSkillFile(filepath.Base(abs)):
			return nil, skill.Mark(fmt.Errorf("%s is neither a skill folder, a SKILL.md nor a folder of skills", p), skill.ErrInvalid)
		case !fi.IsDir():
			named[filepath.Dir(abs)] = true
		default:
			named[abs] = true
		}
		roots = append(roots, catalog.Root{Dir: abs, Source: skill.SourcePath})
	}
	cat, err := catalog.DiscoverRoots(ctx, roots, dropBody)
	if err != nil {
		return nil, err
	}
	out := &Collected{}
	kept := map[string]string{} // id of an effective skill → its folder
	for _, e := range cat.Entries {
		if e.Skill != nil && e.ShadowedBy == "" {
			kept[e.ID()] = e.Dir
		}
	}
	for _, e := range cat.Entries {
		switch {
		case e.Err != nil:
			if named[e.Dir] {
				return nil, fmt.Errorf("skill %s cannot be loaded: %w", e.Dir, e.Err)
			}
			out.Problems = append(out.Problems, catalog.Problem{Path: e.Dir, Source: e.Source, Reason: skill.ErrorReason(e.Err)})
		case e.ShadowedBy != "":
			out.Duplicates = append(out.Duplicates, Duplicate{Name: e.Name, Lost: e.Dir, Kept: kept[e.ShadowedBy]})
		default:
			out.Items = append(out.Items, Item{Skill: e.Skill, RealDir: e.RealDir()})
		}
	}
	return out, nil
}

// Gather finds the skills to index: those at paths when there are any
// (Collect, relative to o.Cwd), else every skill discovered with o.
func Gather(ctx context.Context, paths []string, o catalog.Options) (*Collected, error) {
	if len(paths) > 0 {
		return Collect(ctx, paths, o.Cwd, o.DropBody)
	}
	cat, err := catalog.Discover(ctx, o)
	if err != nil {
		return nil, err
	}
	out := &Collected{Problems: cat.Problems()}
	for _, e := range cat.Entries {
		if e.Skill != nil && e.ShadowedBy == "" {
			out.Items = append(out.Items, Item{Skill: e.Skill, RealDir: e.RealDir()})
		}
	}
	return out, nil
}
