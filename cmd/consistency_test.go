package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/pkg/archive/archivetest"
)

// The commands that take a PATH must find the same skills in it, because
// they all ask pkg/skilltree. These tests build one tree with everything
// that has made them disagree — links inside and leaving it, nested
// SKILL.md, skipped folders, a broken skill, a lowercase skill.md, a
// non-ASCII name — and compare what each command finds.

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: Does " + name + " things.\n---\n# " + name + "\n"
}

// treeFiles is the tree as files (folder → SKILL.md content); links are added apart.
func treeFiles(broken bool) map[string]string {
	files := map[string]string{
		"alpha/SKILL.md":               skillMD("alpha"),
		"alpha/nested/inner/SKILL.md":  skillMD("inner"), // part of alpha
		"group/beta/SKILL.md":          skillMD("beta"),
		"group/lower/skill.md":         skillMD("lower"),
		"group/ünïcode/SKILL.md":       skillMD("ünïcode"),
		"node_modules/pkg/SKILL.md":    skillMD("pkg"),
		".git/hooks/SKILL.md":          skillMD("hooks"),
		"__MACOSX/alpha/SKILL.md":      skillMD("macosx"),
		"group/beta/references/REF.md": "Reference.\n",
		"README.md":                    "Not a skill.\n",
	}
	if broken {
		files["group/broken/SKILL.md"] = "---\nname: [broken\n---\n"
	}
	return files
}

type consistencyEnv struct {
	work string
	env  map[string]string
}

func newConsistencyEnv(t *testing.T, broken bool) *consistencyEnv {
	t.Helper()
	work := t.TempDir()
	for rel, content := range treeFiles(broken) {
		p := filepath.Join(work, "tree", filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(work, "outside"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "outside", "SKILL.md"), []byte(skillMD("outside")), 0o644))
	if runtime.GOOS != "windows" {
		links := map[string]string{
			"tree/alias":        "alpha",                 // inside the tree: the same skill
			"tree/escape-top":   "../outside",            // leaves the tree at the top
			"tree/group/escape": "../../outside",         // leaves the tree below the top
			"tree/group/dead":   "../nowhere",            // broken
			"tree/alpha/ref.md": "nested/inner/SKILL.md", // inside a skill: the skill's business
			"tree/group/up":     "../../tree",            // back up the tree: no loop
			"tree/group/beta2":  "../group/beta/..",      // inside, through ..
		}
		for rel, target := range links {
			require.NoError(t, os.Symlink(target, filepath.Join(work, filepath.FromSlash(rel))))
		}
	}
	home := filepath.Join(work, "home")
	require.NoError(t, os.MkdirAll(home, 0o755))
	return &consistencyEnv{work: work, env: map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME": filepath.Join(home, ".state")}}
}

func (c *consistencyEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	t.Chdir(c.work)
	code := Run(context.Background(), args, ios, func(k string) string { return c.env[k] })
	return code, out.String(), errOut.String()
}

// wantSkills are the skill folders of the tree, relative to it.
func wantSkills(broken bool) []string {
	want := []string{"alpha", "group/beta", "group/lower", "group/ünïcode"}
	if broken {
		want = append(want, "group/broken")
	}
	sort.Strings(want)
	return want
}

func relTo(t *testing.T, base, p string) string {
	t.Helper()
	r, err := filepath.Rel(base, p)
	require.NoError(t, err)
	return filepath.ToSlash(r)
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// skippedIn lists the paths (relative to work) of "warning: skipped PATH:
// REASON" lines whose reason contains what.
func (c *consistencyEnv) skippedIn(stderr, what string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		rest, ok := strings.CutPrefix(line, "warning: skipped ")
		if !ok || !strings.Contains(rest, what) {
			continue
		}
		p, _, _ := strings.Cut(rest, ": ")
		if r, err := filepath.Rel(c.work, p); err == nil && filepath.IsAbs(p) {
			p = r
		}
		out = append(out, filepath.ToSlash(p))
	}
	return sorted(out)
}

func TestCommandsAgreeOnATree(t *testing.T) {
	for _, broken := range []bool{true, false} {
		name := "with a broken skill"
		if !broken {
			name = "all loadable"
		}
		t.Run(name, func(t *testing.T) {
			c := newConsistencyEnv(t, broken)
			tree := filepath.Join(c.work, "tree")
			want := wantSkills(broken)
			var wantSkipped []string
			if runtime.GOOS != "windows" {
				wantSkipped = []string{"tree/escape-top", "tree/group/escape"}
			}

			// validate: one result per skill folder
			code, out, errOut := c.run(t, "validate", "tree", "--format", "json")
			assert.Equal(t, map[bool]int{true: 1, false: 0}[broken], code, errOut)
			var rep struct {
				Skills []struct{ Path string } `json:"skills"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
			var got []string
			for _, s := range rep.Skills {
				got = append(got, relTo(t, "tree", s.Path))
			}
			assert.Equal(t, want, sorted(got), "validate")
			assert.Equal(t, wantSkipped, c.skippedIn(errOut, "not followed"), "validate reports the links it did not follow")

			// index: the loadable ones, the broken one warned about
			code, out, errOut = c.run(t, "index", "tree", "--format", "json")
			require.Equal(t, 0, code, errOut)
			var items []struct{ Path string }
			require.NoError(t, json.Unmarshal([]byte(out), &items), out)
			got = nil
			for _, it := range items {
				got = append(got, relTo(t, tree, it.Path))
			}
			for _, p := range c.skippedIn(errOut, "invalid YAML") {
				got = append(got, strings.TrimPrefix(p, "tree/"))
			}
			assert.Equal(t, want, sorted(got), "index")
			assert.Equal(t, wantSkipped, c.skippedIn(errOut, "not followed"), "index")

			// list --path --all: every skill, broken ones with their reason
			code, out, errOut = c.run(t, "list", "--path", "tree", "--all", "--json")
			require.Equal(t, 0, code, errOut)
			var entries []struct{ Path, Status, Error string }
			require.NoError(t, json.Unmarshal([]byte(out), &entries), out)
			got = nil
			var listSkipped []string
			for _, e := range entries {
				if strings.Contains(e.Error, "not followed") {
					listSkipped = append(listSkipped, relTo(t, c.work, e.Path))
					continue
				}
				got = append(got, relTo(t, tree, e.Path))
			}
			assert.Equal(t, want, sorted(got), "list --path")
			assert.Equal(t, wantSkipped, sorted(listSkipped), "list --path")

			// pack: each skill packs on its own (the broken one fails to
			// validate); the tree is not one skill and pack names what it holds
			for _, rel := range want {
				code, _, errOut = c.run(t, "pack", "tree/"+rel, "-o", filepath.Join(t.TempDir(), "x.skill"))
				if rel == "group/broken" {
					assert.Equal(t, 1, code, errOut)
				} else {
					assert.Equal(t, 0, code, "pack %s: %s", rel, errOut)
				}
			}
			code, _, errOut = c.run(t, "pack", "tree")
			assert.Equal(t, ExitNotFound, code)
			assert.Contains(t, errOut, "holds "+map[bool]string{true: "5", false: "4"}[broken]+" skill(s)")
			for _, rel := range want[:min(5, len(want))] {
				assert.Contains(t, errOut, rel)
			}

			// show: each skill by its path; the tree is not one skill
			for _, rel := range want {
				code, _, errOut = c.run(t, "show", "./tree/"+rel, "--json")
				if rel == "group/broken" {
					assert.Equal(t, 1, code, errOut)
				} else {
					assert.Equal(t, 0, code, "show %s: %s", rel, errOut)
				}
			}
			code, _, errOut = c.run(t, "show", "./tree")
			assert.Equal(t, ExitNotFound, code)
			assert.Contains(t, errOut, "holds "+map[bool]string{true: "5", false: "4"}[broken]+" skill(s)")

			// install: all or nothing; the same skills
			target := filepath.Join(c.work, "target")
			code, out, errOut = c.run(t, "install", "tree", "--dry-run", "--json", "--dir", target)
			if broken {
				assert.Equal(t, 1, code)
				assert.Contains(t, errOut, "broken")
				return
			}
			require.Equal(t, 0, code, errOut)
			var installed struct{ Skills []struct{ Name string } }
			require.NoError(t, json.Unmarshal([]byte(out), &installed), out)
			got = nil
			for _, s := range installed.Skills {
				got = append(got, s.Name)
			}
			var wantNames []string
			for _, rel := range want {
				wantNames = append(wantNames, path.Base(rel))
			}
			assert.Equal(t, sorted(wantNames), sorted(got), "install --dry-run")
			assert.Equal(t, wantSkipped, c.skippedIn(errOut, "not followed"), "install")
		})
	}
}

// archiveEntries is the tree as archive entries, with a link inside it.
func archiveEntries(broken bool) []archivetest.Entry {
	var entries []archivetest.Entry
	for rel, content := range treeFiles(broken) {
		entries = append(entries, archivetest.Entry{Name: "tree/" + rel, Body: content})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return append(entries, archivetest.Entry{Name: "tree/group/beta/alias.md", Kind: archivetest.Symlink, Link: "references/REF.md"})
}

func TestCommandsAgreeOnArchives(t *testing.T) {
	kinds := map[string]func([]archivetest.Entry) []byte{
		"x.zip": archivetest.Zip, "x.skill": archivetest.Zip, "x.tar": archivetest.Tar, "x.tar.gz": archivetest.TarGz, "x.tgz": archivetest.TarGz,
	}
	for file, build := range kinds {
		for _, broken := range []bool{true, false} {
			t.Run(file+map[bool]string{true: " with a broken skill", false: ""}[broken], func(t *testing.T) {
				c := newConsistencyEnv(t, broken)
				require.NoError(t, os.WriteFile(filepath.Join(c.work, file), build(archiveEntries(broken)), 0o644))
				want := wantSkills(broken)

				code, out, errOut := c.run(t, "validate", file, "--format", "json")
				assert.Equal(t, map[bool]int{true: 1, false: 0}[broken], code, errOut)
				var rep struct {
					Skills []struct{ Path string } `json:"skills"`
				}
				require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
				var got []string
				for _, s := range rep.Skills {
					rel, ok := strings.CutPrefix(s.Path, file+"!/tree/")
					require.True(t, ok, s.Path)
					got = append(got, rel)
				}
				assert.Equal(t, want, sorted(got), "validate %s", file)

				code, out, errOut = c.run(t, "install", file, "--dry-run", "--json", "--dir", filepath.Join(c.work, "target"))
				if broken {
					assert.Equal(t, 1, code)
					assert.Contains(t, errOut, "broken")
					return
				}
				require.Equal(t, 0, code, errOut)
				var installed struct{ Skills []struct{ Name string } }
				require.NoError(t, json.Unmarshal([]byte(out), &installed), out)
				got = nil
				for _, s := range installed.Skills {
					got = append(got, s.Name)
				}
				var wantNames []string
				for _, rel := range want {
					wantNames = append(wantNames, path.Base(rel))
				}
				assert.Equal(t, sorted(wantNames), sorted(got), "install --dry-run %s", file)
			})
		}
	}
}

// An archive with a link leaving it is refused whole by validate and install alike.
func TestCommandsAgreeOnAnUnsafeArchive(t *testing.T) {
	c := newConsistencyEnv(t, false)
	entries := append(archiveEntries(false), archivetest.Entry{Name: "tree/group/escape", Kind: archivetest.Symlink, Link: "../../../outside"})
	require.NoError(t, os.WriteFile(filepath.Join(c.work, "x.zip"), archivetest.Zip(entries), 0o644))
	code, out, _ := c.run(t, "validate", "x.zip")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "archive-unsafe")
	code, _, errOut := c.run(t, "install", "x.zip", "--dry-run", "--dir", filepath.Join(c.work, "target"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "leaves the archive")
}
