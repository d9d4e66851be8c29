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

// One returns the skill folder at path (a skill folder or its SKILL.md),
// found by Walk's rules. A path that is a tree of skills, or holds none, is a
// *NotOneSkillError; a path that does not exist is a *skill.NotFoundError
// (display names it in messages).
func One(ctx context.Context, path, display string) (string, error) {
	var mu sync.Mutex
	var rels []string
	root := ""
	err := Walk(ctx, path, Options{Layout: Tree}, func(f *Found) {
		if f.Skipped() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if f.Rel == "." {
			root = f.Dir
		}
		rels = append(rels, f.Rel)
	})
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return "", &skill.NotFoundError{What: "path", Name: display, Detail: display + ": no such file or folder"}
	case err != nil:
		return "", err
	case root != "":
		return root, nil
	}
	sort.Strings(rels)
	return "", &NotOneSkillError{Path: display, Skills: rels}
}
