package skilltree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/skillctl/skillctl/pkg/skill"
)

// NotOneSkillError is a path that should name one skill but does not.
type NotOneSkillError struct {
	Path string
	// Skills are the skill folders found below Path (relative, sorted).
	Skills []string
}

func (e *NotOneSkillError) Error() string {
	if len(e.Skills) == 0 {
		return fmt.Sprintf("%s holds no SKILL.md", e.Path)
	}
	shown := e.Skills
	if len(shown) > 5 {
		shown = append(shown[:5:5], "…")
	}
	return fmt.Sprintf("%s is not a skill folder but holds %d skill(s): %s; name one of them", e.Path, len(e.Skills), strings.Join(shown, ", "))
}

func (e *NotOneSkillError) Unwrap() error { return skill.ErrNotFound }

// Find walks dir as Walk does and returns, sorted by Rel, the skill folders
// (a skill whose file cannot be read included, with its Err) and the
// problems: folders that cannot be read, broken links, links not followed.
// Data is not kept.
func Find(ctx context.Context, dir string, o Options) (skills, problems []Found, err error) {
	var mu sync.Mutex
	err = Walk(ctx, dir, o, func(f *Found) {
		g := *f
		g.Data = nil
		mu.Lock()
		defer mu.Unlock()
		if f.File != "" {
			skills = append(skills, g)
		} else {
			problems = append(problems, g)
		}
	})
	sort.Slice(skills, func(i, j int) bool { return skills[i].Rel < skills[j].Rel })
	sort.Slice(problems, func(i, j int) bool { return problems[i].Rel < problems[j].Rel })
	return skills, problems, err
}

// One returns the skill folder at path (a skill folder or its SKILL.md),
// found by Walk's rules. A path that is a tree of skills, or holds none, is a
// *NotOneSkillError; a path that does not exist is a *skill.NotFoundError
// (display names it in messages).
func One(ctx context.Context, path, display string) (string, error) {
	found, _, err := Find(ctx, path, Options{Layout: Tree})
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return "", &skill.NotFoundError{What: "path", Name: display, Detail: display + ": no such file or folder"}
	case err != nil:
		return "", err
	case len(found) == 1 && found[0].Rel == ".":
		return found[0].Dir, nil
	}
	rels := make([]string, len(found))
	for i, f := range found {
		rels[i] = f.Rel
	}
	return "", &NotOneSkillError{Path: display, Skills: rels}
}
