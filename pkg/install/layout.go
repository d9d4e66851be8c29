package install

import (
	"fmt"
	"maps"
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
// skills are all installed unless --skill picks some. Each skill is named
// by its frontmatter name, else its folder's name (the source's name for a
// SKILL.md at the top), and moved to a folder named after that name's
// slug, as it will be in the target. A skill that cannot be installed
// carries its problems; only a source without any skill is an error.
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
		c := &candidate{src: s, st: st, rel: r, dir: dir, name: path.Base(r)}
		if r == "" {
			c.name = s.baseName()
		}
		// Read whole, as show and run will: a body that is not UTF-8 is a
		// SKILL.md skillctl itself could not load.
		sk, err := skill.Load(dir, skill.LoadOptions{})
		if err != nil {
			c.refuse("agents cannot load its SKILL.md: %s", skill.ErrorReason(err))
		} else {
			c.sk = sk
			if sk.NameDeclared {
				c.name = sk.Name
			}
		}
		cands = append(cands, c)
	}
	if len(in.Skills) > 0 {
		picked, err := in.pick(s, cands)
		if err != nil {
			return nil, err
		}
		cands = picked
	}
	for i, c := range cands {
		if err := checkLinks(c); err != nil {
			c.refuseErr(err)
		}
		for _, name := range slices.Sorted(maps.Keys(st.unsafe)) {
			if c.rel == "" || strings.HasPrefix(name, c.rel+"/") {
				c.refuseErr(st.unsafe[name])
			}
		}
		if len(c.problems) > 0 {
			continue
		}
		c.folder = skill.Slug(c.name)
		if c.folder == "" || checkName(c.folder) != nil {
			c.refuse("its name %q has no letter or digit (a-z, 0-9) to name its folder; give it a name: in SKILL.md", c.name)
			continue
		}
		// Give the folder the name it will have in the target.
		parent := filepath.Join(filepath.Dir(st.dir), fmt.Sprintf("%s-skill-%d", filepath.Base(st.dir), i))
		if err := os.Mkdir(parent, 0o755); err != nil {
			return nil, err
		}
		dest := filepath.Join(parent, c.folder)
		if err := os.Rename(c.dir, dest); err != nil {
			return nil, err
		}
		c.dir = dest
		c.sk.Dir, c.sk.File = dest, filepath.Join(dest, filepath.Base(c.sk.File))
	}
	return cands, nil
}

// pick keeps the skills --skill names: by name, folder name, slug or
// glob. A --skill that matches nothing is an error naming what is there.
func (in *Installer) pick(s *source, cands []*candidate) ([]*candidate, error) {
	matches := func(c *candidate, want string) bool {
		for _, n := range []string{c.name, skill.Slug(c.name), path.Base(c.rel)} {
			if n == "" || n == "." {
				continue
			}
			if n == want {
				return true
			}
			if ok, _ := path.Match(want, n); ok {
				return true
			}
		}
		return false
	}
	var picked []*candidate
	for _, c := range cands {
		for _, want := range in.Skills {
			if matches(c, want) {
				picked = append(picked, c)
				break
			}
		}
	}
	for _, want := range in.Skills {
		ok := false
		for _, c := range picked {
			ok = ok || matches(c, want)
		}
		if !ok {
			var found []string
			for _, c := range cands {
				found = append(found, c.label())
			}
			return nil, skill.Mark(fmt.Errorf("%s: no skill named %s here (found: %s)", s.arg, want, strings.Join(found, ", ")), skill.ErrNotFound)
		}
	}
	return picked, nil
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
			return &archive.EntryError{Entry: li.raw, Err: fmt.Errorf("%w: symlink to %q does not resolve inside the skill", archive.ErrLinkOutside, li.target)}
		}
		if !inside {
			return &archive.EntryError{Entry: li.raw, Err: fmt.Errorf("%w: symlink to %q leaves the skill folder", archive.ErrLinkOutside, li.target)}
		}
	}
	for name, li := range c.st.hardlinks {
		if inside(name) && !inside(li.target) {
			return &archive.EntryError{Entry: li.raw, Err: fmt.Errorf("%w: hardlink to %q leaves the skill folder", archive.ErrLinkOutside, li.target)}
		}
	}
	return nil
}
