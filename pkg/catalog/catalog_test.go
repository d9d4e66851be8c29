package catalog

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/skill"
)

func writeSkill(t *testing.T, dir, name, desc string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(p, 0o755))
	content := "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(p, "SKILL.md"), []byte(content), 0o644))
	return p
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

type fixture struct {
	home, repo, cwd string
	env             map[string]string
}

// newFixture builds a home with user skills, a repository with nested
// project folders, env and path folders and a plugin cache, all holding a
// skill named "shared" (plus one of their own).
func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{home: filepath.Join(base, "home"), repo: filepath.Join(base, "repo"), env: map[string]string{}}
	f.cwd = filepath.Join(f.repo, "sub", "deeper")
	require.NoError(t, os.MkdirAll(filepath.Join(f.repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(f.cwd, 0o755))
	writeSkill(t, filepath.Join(f.home, ".claude", "skills"), "shared", "from user claude")
	writeSkill(t, filepath.Join(f.home, ".claude", "skills"), "user-only", "user skill")
	writeSkill(t, filepath.Join(f.home, ".agents", "skills"), "agents-user", "user agents skill")
	writeSkill(t, filepath.Join(f.repo, ".claude", "skills"), "shared", "from repo top")
	writeSkill(t, filepath.Join(f.repo, ".claude", "skills"), "top-only", "repo top skill")
	writeSkill(t, filepath.Join(f.repo, "sub", ".agents", "skills"), "shared", "from sub")
	writeSkill(t, filepath.Join(base, "env1"), "shared", "from env")
	writeSkill(t, filepath.Join(base, "env1"), "env-only", "env skill")
	writeSkill(t, filepath.Join(base, "pathdir"), "shared", "from path")
	plug := filepath.Join(f.home, ".claude", "plugins", "cache", "market", "tools")
	writeSkill(t, filepath.Join(plug, "1.9.0", "skills"), "shared", "old plugin version")
	writeSkill(t, filepath.Join(plug, "1.10.0", "skills"), "shared", "plugin shared")
	writeSkill(t, filepath.Join(plug, "1.10.0", "skills"), "lint", "plugin lint")
	// a folder above the repository must not be searched
	writeSkill(t, filepath.Join(base, ".claude", "skills"), "outside", "above the repository")
	f.env["SKILLCTL_PATH"] = filepath.Join(base, "env1")
	f.env["PATHDIR"] = filepath.Join(base, "pathdir")
	return f
}

func (f *fixture) opts() Options {
	return Options{Home: f.home, Cwd: f.cwd, Getenv: func(k string) string { return f.env[k] },
		Paths: []string{f.env["PATHDIR"]}}
}

func TestDiscoverTiersAndShadowing(t *testing.T) {
	f := newFixture(t)
	cat, err := Discover(context.Background(), f.opts())
	require.NoError(t, err)
	require.Empty(t, cat.Problems())

	byID := map[string]*Entry{}
	var sharedOrder []string
	for _, e := range cat.Entries {
		if e.Name == "shared" {
			sharedOrder = append(sharedOrder, e.Skill.Description)
		}
		byID[e.ID()+"|"+e.Skill.Description] = e
	}
	assert.Equal(t, []string{"from user claude", "from repo top", "from sub", "from env", "from path", "plugin shared"}, sharedOrder,
		"entries sorted by name, then lowest precedence first")

	var effective []string
	for _, s := range cat.Skills() {
		effective = append(effective, s.ID)
	}
	assert.ElementsMatch(t, []string{"user:agents-user", "env:env-only", "tools:lint", "path:shared", "tools:shared", "project:top-only", "user:user-only"}, effective)

	for _, desc := range []string{"from user claude", "from repo top", "from sub", "from env"} {
		var e *Entry
		for _, x := range cat.Entries {
			if x.Skill.Description == desc {
				e = x
			}
		}
		require.NotNil(t, e, desc)
		assert.Equal(t, "path:shared", e.ShadowedBy, desc)
	}
	assert.Empty(t, byID["tools:shared|plugin shared"].ShadowedBy, "plugin skills never collide with others")
	for _, e := range cat.Entries {
		assert.NotEqual(t, "outside", e.Name, "folders above the repository top are not searched")
		assert.NotEqual(t, "old plugin version", e.Skill.Description, "only the newest plugin version is read")
	}
}

func TestDiscoverNearerProjectShadowsFarther(t *testing.T) {
	f := newFixture(t)
	o := f.opts()
	o.Paths = nil
	o.Getenv = func(string) string { return "" }
	cat, err := Discover(context.Background(), o)
	require.NoError(t, err)
	s, err := cat.Resolve(context.Background(), "shared", f.cwd)
	require.NoError(t, err)
	assert.Equal(t, "from sub", s.Description)
	assert.Equal(t, "project:shared", s.ID)
}

func TestDiscoverAgents(t *testing.T) {
	f := newFixture(t)
	o := f.opts()
	o.Agents = []string{agents.Agents}
	cat, err := Discover(context.Background(), o)
	require.NoError(t, err)
	for _, e := range cat.Entries {
		assert.NotContains(t, e.Dir, string(filepath.Separator)+".claude"+string(filepath.Separator), "claude folders are not read for --agent agents")
	}
	names := map[string]bool{}
	for _, s := range cat.Skills() {
		names[s.Name] = true
	}
	assert.True(t, names["agents-user"])
	assert.False(t, names["lint"], "plugins belong to claude")

	o.Agents = []string{agents.Codex}
	roots := Roots(o)
	var dirs []string
	for _, r := range roots {
		dirs = append(dirs, r.Dir)
	}
	assert.Contains(t, dirs, filepath.Join(f.home, ".codex", "skills"))
	assert.Contains(t, dirs, filepath.Join(f.repo, "sub", ".agents", "skills"))
	assert.NotContains(t, dirs, filepath.Join(f.repo, ".claude", "skills"))

	o.Agents = []string{agents.OpenCode}
	dirs = nil
	for _, r := range Roots(o) {
		dirs = append(dirs, r.Dir)
	}
	assert.Contains(t, dirs, filepath.Join(f.home, ".config", "opencode", "skills"))
	assert.Contains(t, dirs, filepath.Join(f.cwd, ".opencode", "skills"))
	assert.Contains(t, dirs, filepath.Join(f.repo, ".claude", "skills"))
}

func TestDiscoverClaudeConfigDirAndSkillsDir(t *testing.T) {
	base := t.TempDir()
	cfg := filepath.Join(base, "claude-config")
	writeSkill(t, filepath.Join(cfg, "skills"), "from-config-dir", "d")
	writeSkill(t, filepath.Join(base, "csd"), "from-skills-dir", "d")
	env := map[string]string{"CLAUDE_CONFIG_DIR": cfg, "CLAUDE_SKILLS_DIR": filepath.Join(base, "csd")}
	cat, err := Discover(context.Background(), Options{Home: filepath.Join(base, "nohome"), Cwd: base,
		Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)
	var ids []string
	for _, s := range cat.Skills() {
		ids = append(ids, s.ID)
	}
	assert.Equal(t, []string{"user:from-config-dir", "env:from-skills-dir"}, ids)
}

func TestDiscoverBrokenSkillsAreReported(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "good", "fine")
	writeFile(t, filepath.Join(root, "no-frontmatter", "SKILL.md"), "# just markdown\n")
	writeFile(t, filepath.Join(root, "bad-yaml", "SKILL.md"), "---\nname: [x\n---\n")
	writeFile(t, filepath.Join(root, "binary", "SKILL.md"), "---\x00\x01\x02")
	writeFile(t, filepath.Join(root, "huge", "SKILL.md"), "---\nname: huge\ndescription: d\n---\n"+strings.Repeat("x\n", 1600000))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "empty-folder"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "missing"), filepath.Join(root, "dangling")))
	require.NoError(t, os.Symlink(filepath.Join(root, "loop-b"), filepath.Join(root, "loop-a")))
	require.NoError(t, os.Symlink(filepath.Join(root, "loop-a"), filepath.Join(root, "loop-b")))
	writeFile(t, filepath.Join(root, "README.md"), "not a skill")
	writeFile(t, filepath.Join(root, ".hidden", "SKILL.md"), "ignored")

	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: root, Source: skill.SourceUser}}, true)
	require.NoError(t, err)
	var good []string
	for _, s := range cat.Skills() {
		good = append(good, s.Name)
	}
	assert.Equal(t, []string{"good"}, good)
	reasons := map[string]string{}
	for _, p := range cat.Problems() {
		reasons[filepath.Base(p.Path)] = p.Reason
	}
	assert.Contains(t, reasons["no-frontmatter"], "must start with YAML frontmatter")
	assert.Contains(t, reasons["bad-yaml"], "invalid YAML")
	assert.Contains(t, reasons["binary"], "NUL")
	assert.Contains(t, reasons["huge"], "limit")
	assert.Contains(t, reasons["empty-folder"], "no SKILL.md")
	assert.Equal(t, "broken symbolic link", reasons["dangling"])
	assert.Equal(t, "symbolic link loop", reasons["loop-a"])
	assert.Equal(t, "symbolic link loop", reasons["loop-b"])
	assert.Len(t, reasons, 8, "README.md and hidden folders are not skills: %v", reasons)
}

func TestDiscoverUnreadableSkill(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: file permissions do not stop reads")
	}
	root := t.TempDir()
	writeSkill(t, root, "locked", "d")
	require.NoError(t, os.Chmod(filepath.Join(root, "locked", "SKILL.md"), 0))
	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: root, Source: skill.SourcePath}}, true)
	require.NoError(t, err)
	require.Len(t, cat.Problems(), 1)
	assert.Contains(t, cat.Problems()[0].Reason, "permission denied")
}

func TestDiscoverSymlinkedSkillLoadedOnce(t *testing.T) {
	base := t.TempDir()
	real := writeSkill(t, filepath.Join(base, "store"), "linked", "d")
	root := filepath.Join(base, "root")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.Symlink(real, filepath.Join(root, "linked")))
	require.NoError(t, os.Symlink(real, filepath.Join(root, "alias")))
	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: root, Source: skill.SourceUser}, {Dir: filepath.Join(base, "store"), Source: skill.SourceEnv}}, false)
	require.NoError(t, err)
	require.Len(t, cat.Entries, 1, "the same real folder is loaded once")
	assert.Equal(t, "linked", cat.Entries[0].Name)
	assert.Empty(t, cat.Problems())
}

func TestDiscoverPathNamingOneSkill(t *testing.T) {
	base := t.TempDir()
	dir := writeSkill(t, base, "solo", "d")
	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: dir, Source: skill.SourcePath}}, false)
	require.NoError(t, err)
	require.Len(t, cat.Skills(), 1)
	assert.Equal(t, "path:solo", cat.Skills()[0].ID)
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	cat, err := Discover(context.Background(), f.opts())
	require.NoError(t, err)
	s, err := cat.Resolve(context.Background(), "tools:shared", f.cwd)
	require.NoError(t, err)
	assert.Equal(t, "plugin shared", s.Description)
	s, err = cat.Resolve(context.Background(), "lint", f.cwd)
	require.NoError(t, err, "a unique plugin skill resolves by its bare name")
	assert.Equal(t, "tools:lint", s.ID)
	s, err = cat.Resolve(context.Background(), filepath.Join(f.repo, ".claude", "skills", "top-only", "SKILL.md"), f.cwd)
	require.NoError(t, err)
	assert.Equal(t, "top-only", s.Name)

	_, err = cat.Resolve(context.Background(), "user-onyl", f.cwd)
	require.ErrorIs(t, err, skill.ErrNotFound)
	assert.Contains(t, err.Error(), "did you mean user-only?")
}

func TestCompareVersions(t *testing.T) {
	assert.Negative(t, skill.CompareVersions("1.9.0", "1.10.0"))
	assert.Positive(t, skill.CompareVersions("v2.0", "1.99"))
	assert.Negative(t, skill.CompareVersions("1.0.0-beta", "1.0.0"))
	assert.Zero(t, skill.CompareVersions("1.2", "1.2"))
}

func TestRepoTopAndProjectDirs(t *testing.T) {
	base := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(base, "r", ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "r", "a", "b"), 0o755))
	assert.Equal(t, filepath.Join(base, "r"), agents.RepoTop(filepath.Join(base, "r", "a", "b")))
	assert.Equal(t, []string{filepath.Join(base, "r"), filepath.Join(base, "r", "a"), filepath.Join(base, "r", "a", "b")},
		agents.ProjectDirs(filepath.Join(base, "r", "a", "b")))
}

func TestDiscoverLinkToAnotherRootsSkillLoadedOnce(t *testing.T) {
	base := t.TempDir()
	store := filepath.Join(base, "store")
	writeSkill(t, store, "shared", "d")
	other := filepath.Join(base, "other")
	require.NoError(t, os.MkdirAll(other, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(store, "shared"), filepath.Join(other, "shared-link")))
	// the same root twice (through a link to the root itself) is read once
	require.NoError(t, os.Symlink(store, filepath.Join(base, "store-link")))
	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: store, Source: skill.SourceUser}, {Dir: other, Source: skill.SourceProject},
		{Dir: filepath.Join(base, "store-link"), Source: skill.SourcePath}}, true)
	require.NoError(t, err)
	require.Len(t, cat.Entries, 1)
	assert.Equal(t, "user:shared", cat.Entries[0].ID())
	assert.Equal(t, filepath.Join(store, "shared"), cat.Entries[0].RealDir())
}

func TestPathTreeReportsLinksItDoesNotFollow(t *testing.T) {
	base := t.TempDir()
	tree := filepath.Join(base, "tree")
	writeSkill(t, filepath.Join(tree, "deep", "er"), "nested", "found at any depth")
	writeSkill(t, filepath.Join(base, "outside"), "outside", "not in the tree")
	require.NoError(t, os.Symlink(filepath.Join(base, "outside", "outside"), filepath.Join(tree, "out")))
	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: tree, Source: skill.SourcePath}}, true)
	require.NoError(t, err)
	require.Len(t, cat.Skills(), 1)
	assert.Equal(t, "nested", cat.Skills()[0].Name)
	require.Len(t, cat.Problems(), 1)
	assert.Contains(t, cat.Problems()[0].Reason, "outside the tree; not followed")
	assert.Equal(t, []string{filepath.Join(tree, "deep", "er", "nested")}, cat.SkillDirs(), "a link not followed is no skill folder")
}

func TestDiscoverCancelled(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cat, err := Discover(ctx, f.opts())
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, cat)
}

// Attack 16: a skills folder others may write to (or, as root, one of
// another user) shadowed the user's skills. It is not loaded, and is
// reported with the reason.
func TestDiscoverUntrustedRootsAreNotLoaded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix owner or mode on Windows")
	}
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	writeSkill(t, open, "pdf", "planted")
	require.NoError(t, os.Chmod(open, 0o777))
	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: open, Source: skill.SourcePath}}, false)
	require.NoError(t, err)
	assert.Empty(t, cat.Skills())
	probs := cat.Problems()
	require.Len(t, probs, 1)
	assert.Equal(t, open, probs[0].Path)
	assert.Contains(t, probs[0].Reason, "anyone may write to it")
	if os.Getuid() == 0 {
		other := filepath.Join(dir, "other")
		writeSkill(t, other, "pdf", "planted")
		require.NoError(t, os.Chown(other, 65534, 65534))
		cat, err = DiscoverRoots(context.Background(), []Root{{Dir: other, Source: skill.SourcePath}}, false)
		require.NoError(t, err)
		assert.Empty(t, cat.Skills())
		assert.Contains(t, cat.Problems()[0].Reason, "belongs to user 65534")
	}
}

// Attack 16: names that differ only by Unicode normalisation were two
// skills that look the same. They are one name: the later shadows the
// earlier, with a warning that says why.
func TestDiscoverNFKCEqualNamesAreOneName(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeSkill(t, a, "caf\u00e9", "composed")
	writeSkill(t, b, "cafe\u0301", "decomposed")
	cat, err := DiscoverRoots(context.Background(), []Root{{Dir: a, Source: skill.SourceUser}, {Dir: b, Source: skill.SourceProject}}, false)
	require.NoError(t, err)
	require.Len(t, cat.Skills(), 1)
	assert.Equal(t, "decomposed", cat.Skills()[0].Description)
	require.Len(t, cat.Warnings, 1)
	assert.Contains(t, cat.Warnings[0], "same after Unicode normalisation")
}

// The mode run would use is right for every skill, the namesakes whose
// folders discovery does not look at while it loads them included.
func TestModesOfNamesakes(t *testing.T) {
	base := t.TempDir()
	low, high := filepath.Join(base, "low"), filepath.Join(base, "high")
	writeFile(t, filepath.Join(low, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: d\n---\n")
	writeFile(t, filepath.Join(high, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: d\n---\n")
	writeFile(t, filepath.Join(high, "pdf", "scripts", "run.sh"), "#!/bin/sh\n")
	writeFile(t, filepath.Join(high, "notes", "SKILL.md"), "---\nname: notes\ndescription: d\n---\n")
	// Copies in folders not named after them: the later one wins.
	writeFile(t, filepath.Join(low, "copy-1", "SKILL.md"), "---\nname: tool\ndescription: d\n---\n")
	writeFile(t, filepath.Join(high, "copy-2", "SKILL.md"), "---\nname: tool\ndescription: d\n---\n")
	writeFile(t, filepath.Join(high, "copy-2", "scripts", "run.py"), "print(1)\n")
	for _, tc := range []struct{ def, pdf, notes string }{{"", "sandbox", "direct"}, {"direct", "direct", "direct"}, {"sandbox", "sandbox", "sandbox"}} {
		cat, err := Discover(context.Background(), Options{Home: filepath.Join(base, "home"), Paths: []string{low, high},
			DropBody: true, Modes: true, DefaultMode: tc.def, Getenv: func(string) string { return "" }})
		require.NoError(t, err)
		modes := map[string]string{}
		for _, e := range cat.Entries {
			modes[e.Dir] = e.Skill.EffectiveMode()
		}
		assert.Equal(t, tc.pdf, modes[filepath.Join(high, "pdf")], "default %q: the effective pdf", tc.def)
		want := "direct"
		if tc.def == "sandbox" {
			want = "sandbox"
		}
		assert.Equal(t, want, modes[filepath.Join(low, "pdf")], "default %q: the shadowed pdf", tc.def)
		assert.Equal(t, tc.notes, modes[filepath.Join(high, "notes")], "default %q", tc.def)
		assert.Equal(t, tc.pdf, modes[filepath.Join(high, "copy-2")], "default %q: the effective copy", tc.def)
		assert.Equal(t, want, modes[filepath.Join(low, "copy-1")], "default %q: the shadowed copy", tc.def)
	}
}
