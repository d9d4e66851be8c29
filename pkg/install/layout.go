package install

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
)

// locate finds the skills of a staged source by the one finder's rules: a
// folder as skilltree found it before staging, an archive by
// skilltree.InList — SKILL.md at the top, else every outermost folder below
// holding SKILL.md (one top-level folder is the common case). Several
// skills are all installed unless --skill picks some. Each picked skill is
// moved to a folder named after it.
func (in *Installer) locate(s *source, st *staged) ([]*candidate, error) {
	var rels []string
	if s.rels != nil {
		// A folder: what skilltree found in it, as far as it was staged.
		for _, r := range s.rels {
			d := r
			if d == "" {
				d = "."
			}
			if skilltree.SkillFileIn(st.files, d) != "" {
				rels = append(rels, r)
			}
		}
	} else {
		names := make([]string, 0, len(st.files))
		for f := range st.files {
			names = append(names, f)
		}
		for _, d := range skilltree.InList(names) {
			if d == "." {
				d = ""
			}
			rels = append(rels, d)
		}
	}
	if len(rels) == 0 {
		return nil, fmt.Errorf("%s: %w: no SKILL.md at the top, in a top-level folder or in any folder below", s.arg, ErrNoSkill)
	}
	var cands []*candidate
	for _, r := range rels {
		dir := filepath.Join(st.dir, filepath.FromSlash(r))
		name := filepath.Base(dir)
		if r == "" {
			name = ""
		}
		if sk, err := skill.Load(dir, skill.LoadOptions{DropBody: true}); err == nil {
			if sk.NameDeclared {
				name = sk.Name
			}
		}
		cands = append(cands, &candidate{src: s, st: st, rel: r, dir: dir, name: name})
	}
	if len(in.Skills) > 0 {
		var picked []*candidate
		var found []string
		for _, c := range cands {
			found = append(found, c.name)
			if slices.Contains(in.Skills, c.name) || c.rel != "" && slices.Contains(in.Skills, path.Base(c.rel)) {
				picked = append(picked, c)
			}
		}
		for _, want := range in.Skills {
			ok := false
			for _, c := range picked {
				if c.name == want || c.rel != "" && path.Base(c.rel) == want {
					ok = true
				}
			}
			if !ok {
				return nil, fmt.Errorf("%s: no skill named %s here (found: %s): %w", s.arg, want, strings.Join(found, ", "), skill.ErrNotFound)
			}
		}
		cands = picked
	}
	for i, c := range cands {
		if err := checkLinks(c); err != nil {
			return nil, err
		}
		if c.name == "" || checkName(c.name) != nil {
			continue // validation reports it
		}
		// Give the folder the skill's name, as it will have in the target.
		parent := filepath.Join(filepath.Dir(st.dir), fmt.Sprintf("%s-skill-%d", filepath.Base(st.dir), i))
		if err := os.Mkdir(parent, 0o755); err != nil {
			return nil, err
		}
		dest := filepath.Join(parent, c.name)
		if err := os.Rename(c.dir, dest); err != nil {
			return nil, err
		}
		c.dir = dest
	}
	return cands, nil
}

// checkLinks refuses symlinks that resolve outside the skill folder (also
// through other links) and hardlinks to files outside it.
func checkLinks(c *candidate) error {
	inside := func(name string) bool {
		return c.rel == "" || strings.HasPrefix(name, c.rel+"/")
	}
	base, err := filepath.EvalSymlinks(c.dir)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(c.st.symlinks))
	for name := range c.st.symlinks {
		if inside(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		li := c.st.symlinks[name]
		p := filepath.Join(c.st.dir, filepath.FromSlash(name))
		_, inside, err := skill.LinkTarget(base, p)
		if err != nil {
			return fmt.Errorf("%s: %w", c.src.arg, &archive.EntryError{Entry: li.raw, Err: fmt.Errorf("%w: symlink to %q does not resolve inside the skill", archive.ErrLinkOutside, li.target)})
		}
		if !inside {
			return fmt.Errorf("%s: %w", c.src.arg, &archive.EntryError{Entry: li.raw, Err: fmt.Errorf("%w: symlink to %q leaves the skill folder", archive.ErrLinkOutside, li.target)})
		}
	}
	for name, li := range c.st.hardlinks {
		if inside(name) && !inside(li.target) {
			return fmt.Errorf("%s: %w", c.src.arg, &archive.EntryError{Entry: li.raw, Err: fmt.Errorf("%w: hardlink to %q leaves the skill folder", archive.ErrLinkOutside, li.target)})
		}
	}
	return nil
}
