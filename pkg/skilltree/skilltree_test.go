package skilltree

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func link(t *testing.T, root, rel, target string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	require.NoError(t, os.Symlink(target, filepath.Join(root, filepath.FromSlash(rel))))
}

const md = "---\nname: x\ndescription: d\n---\n"

// walk returns the Rel of every skill found and of every problem, with its reason.
func walk(t *testing.T, dir string, o Options) (skills []string, problems map[string]string) {
	t.Helper()
	found, probs, err := Find(context.Background(), dir, o)
	require.NoError(t, err)
	problems = map[string]string{}
	for _, f := range found {
		skills = append(skills, f.Rel)
	}
	for _, p := range probs {
		problems[p.Rel] = p.Err.Error()
	}
	return skills, problems
}

func TestTreeRules(t *testing.T) {
	base := t.TempDir()
	tree := filepath.Join(base, "tree")
	write(t, tree, "a/SKILL.md", md)
	write(t, tree, "a/nested/SKILL.md", md) // part of a
	write(t, tree, "g/b/SKILL.md", md)
	write(t, tree, "g/lower/skill.md", md)
	write(t, tree, "g/both/SKILL.md", md)
	write(t, tree, "g/both/skill.md", md)
	write(t, tree, "g/notes/README.md", "not a skill")
	write(t, tree, ".claude/skills/hidden-ok/SKILL.md", md) // hidden folders of a tree are searched
	write(t, tree, "node_modules/m/SKILL.md", md)
	write(t, tree, ".git/x/SKILL.md", md)
	write(t, tree, "__MACOSX/a/SKILL.md", md)
	write(t, tree, ".skillctl-staging-1/s/SKILL.md", md)
	write(t, base, "outside/SKILL.md", md)
	link(t, tree, "alias", "a")
	link(t, tree, "top-out", "../outside")
	link(t, tree, "g/deep-out", "../../outside")
	link(t, tree, "g/dead", "nowhere")
	link(t, tree, "g/loop", "../g")

	skills, problems := walk(t, tree, Options{Layout: Tree})
	assert.Equal(t, []string{".claude/skills/hidden-ok", "a", "g/b", "g/both", "g/lower"}, skills)
	assert.Len(t, problems, 2)
	assert.Contains(t, problems["top-out"], "not followed")
	assert.Contains(t, problems["g/deep-out"], "not followed")

	// the same walk from a link to the tree finds the same
	link(t, base, "tree-link", "tree")
	again, _ := walk(t, filepath.Join(base, "tree-link"), Options{Layout: Tree})
	assert.Equal(t, skills, again)

	// a skill folder, and its SKILL.md, name one skill
	one, _ := walk(t, filepath.Join(tree, "a"), Options{Layout: Tree})
	assert.Equal(t, []string{"."}, one)
	one, _ = walk(t, filepath.Join(tree, "a", "SKILL.md"), Options{Layout: Tree})
	assert.Equal(t, []string{"."}, one)
}

func TestChildrenRules(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "skills")
	write(t, root, "a/SKILL.md", md)
	write(t, root, "a/nested/SKILL.md", md)
	write(t, root, "empty/README.md", "")
	write(t, root, "deep/x/SKILL.md", md) // not a direct child: a broken skill "deep"
	write(t, root, ".hidden/SKILL.md", md)
	write(t, root, "README.md", "")
	write(t, base, "store/s/SKILL.md", md)
	link(t, root, "alias", "a")
	link(t, root, "linked", "../store/s")
	link(t, root, "linked-again", "../store/s")
	link(t, root, "dead", "nowhere")
	link(t, root, "loop", "loop")

	skills, problems := walk(t, root, Options{Layout: Children})
	assert.Equal(t, []string{"a", "linked"}, skills, "links are followed, each real folder once")
	assert.Equal(t, []string{"dead", "deep", "empty", "loop"}, keys(problems))
	assert.Contains(t, problems["deep"], "no SKILL.md")
	assert.Contains(t, problems["dead"], "broken symbolic link")
	assert.Contains(t, problems["loop"], "symbolic link loop")
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestGitIgnore(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git", "info"), 0o755))
	write(t, repo, ".git/info/exclude", "excluded/\n")
	write(t, repo, ".gitignore", "# build output\ndist/\n/vendor\n**/gen/**\n*.tmp\n!keep.tmp\n")
	write(t, repo, "skills/.gitignore", "old-*\n")
	for _, rel := range []string{"skills/a", "skills/old-b", "skills/keep.tmp", "skills/x.tmp", "dist/c", "sub/dist/d",
		"vendor/e", "sub/vendor/f", "sub/gen/deep/g", "excluded/h", "skills/in/old-i"} {
		write(t, repo, rel+"/SKILL.md", md)
	}
	skills, _ := walk(t, filepath.Join(repo, "skills"), Options{Layout: Tree, GitIgnore: true})
	assert.Equal(t, []string{"a", "keep.tmp"}, skills, "rules of the folders above apply")
	skills, _ = walk(t, repo, Options{Layout: Tree, GitIgnore: true})
	assert.Equal(t, []string{"skills/a", "skills/keep.tmp", "sub/vendor/f"}, skills)
	skills, _ = walk(t, repo, Options{Layout: Tree})
	assert.Len(t, skills, 11, "without GitIgnore nothing is left out")
}

func TestExclude(t *testing.T) {
	repo := t.TempDir()
	for _, rel := range []string{"skills/a", "skills/b", "vendor/c", "sub/vendor/d", "sub/testdata/e", "x/testdata/deep/f", "keep/g"} {
		write(t, repo, rel+"/SKILL.md", md)
	}
	m := NewMatcher([]Pattern{{Glob: "/vendor/", Base: repo}, {Glob: "testdata", Base: repo}, {Glob: "skills/b", Base: repo},
		{Glob: "sub/*", Base: filepath.Join(repo, "elsewhere")}})
	skills, _ := walk(t, repo, Options{Layout: Tree, Exclude: m})
	assert.Equal(t, []string{"keep/g", "skills/a", "sub/vendor/d"}, skills)
	skills, _ = walk(t, filepath.Join(repo, "skills"), Options{Layout: Tree, Exclude: m})
	assert.Equal(t, []string{"a"}, skills, "patterns are relative to their base, not to the walked folder")
	assert.True(t, m.Excluded(filepath.Join(repo, "x", "testdata", "deep", "f")), "a folder below an excluded one")
	assert.False(t, m.Excluded(filepath.Join(repo, "keep", "g")))
	assert.False(t, (*Matcher)(nil).Excluded(repo))
	m = NewMatcher([]Pattern{{Glob: "skills/*", Base: repo}, {Glob: "!skills/a", Base: repo}})
	skills, _ = walk(t, filepath.Join(repo, "skills"), Options{Layout: Tree, Exclude: m})
	assert.Equal(t, []string{"a"}, skills, "a later ! pattern takes one back")
	assert.NotEmpty(t, CheckGlob("# a comment"))
	assert.NotEmpty(t, CheckGlob(" "))
	assert.Empty(t, CheckGlob("vendor/"))
}

func TestInList(t *testing.T) {
	assert.Equal(t, []string{"."}, InList([]string{"SKILL.md", "sub/SKILL.md"}))
	assert.Equal(t, []string{"a", "b/c", "lower"}, InList([]string{
		"a/SKILL.md", "a/nested/SKILL.md", "b/c/SKILL.md", "b/README.md", "lower/skill.md",
		"__MACOSX/a/SKILL.md", "node_modules/x/SKILL.md", ".git/y/SKILL.md", "./a/scripts/run.sh",
	}))
	assert.Empty(t, InList([]string{"README.md", "docs/x.md"}))
	// "a-b" sorts between "a" and "a/nested": nesting is by folder, not by name
	assert.Equal(t, []string{"a", "a-b", "a.c"}, InList([]string{"a/SKILL.md", "a-b/SKILL.md", "a.c/SKILL.md", "a/nested/SKILL.md", "a/x y/SKILL.md"}))
	files := map[string]bool{"a/SKILL.md": true, "a/skill.md": true, "b/skill.md": true, "SKILL.md": true}
	assert.Equal(t, "a/SKILL.md", SkillFileIn(files, "a"))
	assert.Equal(t, "b/skill.md", SkillFileIn(files, "b"))
	assert.Equal(t, "SKILL.md", SkillFileIn(files, "."))
	assert.Equal(t, "", SkillFileIn(files, "c"))
}

func TestOne(t *testing.T) {
	tree := t.TempDir()
	write(t, tree, "a/SKILL.md", md)
	write(t, tree, "b/SKILL.md", md)
	dir, err := One(context.Background(), filepath.Join(tree, "a"), "a")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(tree, "a"), dir)
	_, err = One(context.Background(), tree, "tree")
	var one *NotOneSkillError
	require.ErrorAs(t, err, &one)
	assert.Equal(t, []string{"a", "b"}, one.Skills)
	assert.Contains(t, err.Error(), "holds 2 skill(s): a, b")
	_, err = One(context.Background(), filepath.Join(tree, "nope"), "nope")
	assert.ErrorContains(t, err, "nope: no such file or folder")
}

func TestWalkCancelled(t *testing.T) {
	tree := t.TempDir()
	for i := range 200 {
		write(t, tree, filepath.Join("g", string(rune('a'+i%26)), "s"+string(rune('a'+i/26)), "SKILL.md"), md)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	n := 0
	err := Walk(ctx, tree, Options{Layout: Tree, Workers: 1}, func(*Found) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 3 {
			cancel()
		}
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, n, 10, "the walk stops soon after the cancel")
}
