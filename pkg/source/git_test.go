package source

import (
	"context"
	"errors"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/skill"
)

func TestParseGit(t *testing.T) {
	tests := []struct {
		arg                string
		url, ref, subdir   string
		tree               []string
		notGit, wantErrors bool
	}{
		{arg: "anthropics/skills", url: "https://github.com/anthropics/skills.git"},
		{arg: "anthropics/skills/skills/pdf", url: "https://github.com/anthropics/skills.git", subdir: "skills/pdf"},
		{arg: "anthropics/skills@v1.2", url: "https://github.com/anthropics/skills.git", ref: "v1.2"},
		{arg: "o/r/sub/path@feature/x", url: "https://github.com/o/r.git", subdir: "sub/path", ref: "feature/x"},
		{arg: "github:o/r", url: "https://github.com/o/r.git"},
		{arg: "o/r.git", url: "https://github.com/o/r.git"},
		{arg: "https://github.com/o/r", url: "https://github.com/o/r.git"},
		{arg: "https://github.com/o/r/tree/main/skills/pdf", url: "https://github.com/o/r.git", tree: []string{"main", "skills", "pdf"}},
		{arg: "https://gitlab.com/g/sub/r/-/tree/v2/path", url: "https://gitlab.com/g/sub/r.git", tree: []string{"v2", "path"}},
		{arg: "https://git.example.com/team/skills.git#v3", url: "https://git.example.com/team/skills.git", ref: "v3"},
		{arg: "git+https://git.example.com/x#main", url: "https://git.example.com/x", ref: "main"},
		{arg: "ssh://git@host/o/r.git", url: "ssh://git@host/o/r.git"},
		{arg: "git@github.com:o/r.git#dev", url: "git@github.com:o/r.git", ref: "dev"},
		{arg: "file:///srv/r.git", url: "file:///srv/r.git"},
		{arg: "https://example.com/pdf.zip", notGit: true},
		{arg: "https://example.com", notGit: true},
		{arg: "./pdf", notGit: true},
		{arg: "pdf", notGit: true},
		{arg: "../a/b", notGit: true},
		{arg: "github:nope", wantErrors: true},
		{arg: "https://github.com/o/r/tree/", wantErrors: true},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			g, ok, err := ParseGit(tt.arg)
			if tt.notGit {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			if tt.wantErrors {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.url, g.URL)
			assert.Equal(t, tt.ref, g.Ref)
			assert.Equal(t, tt.subdir, g.Subdir)
			assert.Equal(t, tt.tree, g.tree)
		})
	}
	assert.Equal(t, "https://host/r.git", Redact("https://user:secret@host/r.git"))
}

// repo is a bare repository made by the test, and a work tree to commit from.
type repo struct {
	t          *testing.T
	bare, work string
	env        []string
}

func gitOrSkip(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

func newRepo(t *testing.T) *repo {
	gitOrSkip(t)
	base := t.TempDir()
	r := &repo{t: t, bare: filepath.Join(base, "r.git"), work: filepath.Join(base, "work")}
	global := filepath.Join(base, "gitconfig")
	require.NoError(t, os.WriteFile(global, []byte("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644))
	r.env = []string{"GIT_CONFIG_GLOBAL=" + global, "GIT_CONFIG_NOSYSTEM=1"}
	r.git(base, "init", "-q", "--bare", r.bare)
	r.git(base, "init", "-q", r.work)
	r.git(r.work, "remote", "add", "origin", r.bare)
	return r
}

func (r *repo) git(dir string, args ...string) string {
	r.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), r.env...)
	out, err := c.CombinedOutput()
	require.NoError(r.t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// commit writes files (path → content) and pushes them to branch; it
// returns the commit SHA.
func (r *repo) commit(branch string, files map[string]string) string {
	r.t.Helper()
	for p, c := range files {
		full := filepath.Join(r.work, filepath.FromSlash(p))
		require.NoError(r.t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(r.t, os.WriteFile(full, []byte(c), 0o644))
	}
	r.git(r.work, "add", "-A")
	r.git(r.work, "commit", "-q", "-m", "change", "--allow-empty")
	sha := r.git(r.work, "rev-parse", "HEAD")
	r.git(r.work, "push", "-q", "-f", "origin", "HEAD:refs/heads/"+branch)
	return sha
}

func (r *repo) url() string { return "file://" + filepath.ToSlash(r.bare) }

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n# " + name + "\n"
}

func fetch(t *testing.T, r *repo, arg string, mod func(*Git)) (*Fetched, error) {
	t.Helper()
	g, ok, err := ParseGit(arg)
	require.True(t, ok, arg)
	require.NoError(t, err)
	if mod != nil {
		mod(g)
	}
	return g.Fetch(context.Background(), filepath.Join(t.TempDir(), "co"), FetchOptions{Env: r.env})
}

func TestFetch(t *testing.T) {
	r := newRepo(t)
	first := r.commit("main", map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "skills/beta/SKILL.md": skillMD("beta"),
		"skills/café/SKILL.md": skillMD("café"), "README.md": "repo\n"})
	r.git(r.work, "tag", "v1")
	r.git(r.work, "push", "-q", "origin", "v1")
	second := r.commit("main", map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + "v2\n"})
	r.commit("feature/deep", map[string]string{"skills/gamma/SKILL.md": skillMD("gamma")})

	t.Run("default branch", func(t *testing.T) {
		f, err := fetch(t, r, r.url(), nil)
		require.NoError(t, err)
		assert.Equal(t, second, f.Commit)
		assert.FileExists(t, filepath.Join(f.Root, "skills", "alpha", "SKILL.md"))
	})
	t.Run("only the skill folders are checked out", func(t *testing.T) {
		f, err := fetch(t, r, r.url(), nil)
		require.NoError(t, err)
		assert.FileExists(t, filepath.Join(f.Root, "skills", "beta", "SKILL.md"))
		assert.NoFileExists(t, filepath.Join(f.Dir, "README.md"), "a file outside every skill is not checked out")
		assert.FileExists(t, filepath.Join(f.Root, "skills", "café", "SKILL.md"), "a name outside ASCII is found too")
	})
	t.Run("sub path is sparse", func(t *testing.T) {
		f, err := fetch(t, r, r.url(), func(g *Git) { g.Subdir = "skills/beta" })
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(f.Dir, "skills", "beta"), f.Root)
		assert.FileExists(t, filepath.Join(f.Root, "SKILL.md"))
		assert.NoFileExists(t, filepath.Join(f.Dir, "README.md"), "only the sub path is checked out")
	})
	t.Run("tag", func(t *testing.T) {
		f, err := fetch(t, r, r.url()+"#v1", nil)
		require.NoError(t, err)
		assert.Equal(t, first, f.Commit)
	})
	t.Run("commit SHA, not at a branch tip", func(t *testing.T) {
		f, err := fetch(t, r, r.url()+"#"+first, nil)
		require.NoError(t, err)
		assert.Equal(t, first, f.Commit)
		b, _ := os.ReadFile(filepath.Join(f.Root, "skills", "alpha", "SKILL.md"))
		assert.NotContains(t, string(b), "v2")
	})
	t.Run("tree URL with a ref holding a slash, through insteadOf", func(t *testing.T) {
		global := filepath.Join(t.TempDir(), "gitconfig")
		require.NoError(t, os.WriteFile(global, []byte("[url \""+r.url()+"\"]\n\tinsteadOf = https://github.com/acme/skills.git\n"), 0o644))
		g, ok, err := ParseGit("https://github.com/acme/skills/tree/feature/deep/skills/gamma")
		require.True(t, ok)
		require.NoError(t, err)
		f, err := g.Fetch(context.Background(), filepath.Join(t.TempDir(), "co"), FetchOptions{Env: []string{"GIT_CONFIG_GLOBAL=" + global}})
		require.NoError(t, err)
		assert.Equal(t, "feature/deep", f.Ref)
		assert.Equal(t, "skills/gamma", f.Subdir)
		assert.FileExists(t, filepath.Join(f.Root, "SKILL.md"))
	})
	t.Run("errors say what happened", func(t *testing.T) {
		_, err := fetch(t, r, "file://"+filepath.ToSlash(filepath.Join(t.TempDir(), "gone.git")), nil)
		require.Error(t, err)
		assert.True(t, errors.Is(err, skill.ErrNotFound), "%v", err)
		assert.Contains(t, err.Error(), "repository not found")

		_, err = fetch(t, r, r.url()+"#mian", nil)
		require.Error(t, err)
		assert.True(t, errors.Is(err, skill.ErrNotFound), "%v", err)
		assert.Contains(t, err.Error(), `no branch, tag or commit "mian"`)
		assert.Contains(t, err.Error(), "did you mean main?")

		_, err = fetch(t, r, r.url(), func(g *Git) { g.Subdir = "skills/alpah" })
		require.Error(t, err)
		assert.True(t, errors.Is(err, skill.ErrNotFound), "%v", err)
		assert.Contains(t, err.Error(), "no folder skills/alpah")
		assert.Contains(t, err.Error(), "did you mean skills/alpha")
	})
	t.Run("resolve without fetching", func(t *testing.T) {
		got, err := Resolve(context.Background(), r.url(), "", FetchOptions{Env: r.env})
		require.NoError(t, err)
		assert.Equal(t, second, got.Commit)
		assert.False(t, got.Tag)
		got, err = Resolve(context.Background(), r.url(), "v1", FetchOptions{Env: r.env})
		require.NoError(t, err)
		assert.Equal(t, first, got.Commit)
		assert.True(t, got.Tag, "a tag is a pin")
		got, err = Resolve(context.Background(), r.url(), first, FetchOptions{Env: r.env})
		require.NoError(t, err)
		assert.Equal(t, first, got.Commit)
		_, err = Resolve(context.Background(), r.url(), "nope", FetchOptions{Env: r.env})
		assert.True(t, errors.Is(err, skill.ErrNotFound), "%v", err)
	})
	t.Run("hooks never run", func(t *testing.T) {
		hooks := t.TempDir()
		marker := filepath.Join(t.TempDir(), "ran")
		require.NoError(t, os.WriteFile(filepath.Join(hooks, "post-checkout"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))
		global := filepath.Join(t.TempDir(), "gitconfig")
		require.NoError(t, os.WriteFile(global, []byte("[core]\n\thooksPath = "+hooks+"\n"), 0o644))
		g, _, _ := ParseGit(r.url())
		_, err := g.Fetch(context.Background(), filepath.Join(t.TempDir(), "co"), FetchOptions{Env: []string{"GIT_CONFIG_GLOBAL=" + global}})
		require.NoError(t, err)
		assert.NoFileExists(t, marker, "the user's hooks do not run on a fetched repository")
	})
	t.Run("git missing", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		g, _, _ := ParseGit(r.url())
		_, err := g.Fetch(context.Background(), filepath.Join(t.TempDir(), "co"), FetchOptions{})
		require.ErrorIs(t, err, ErrGitMissing)
		assert.Contains(t, err.Error(), "archive")
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		g, _, _ := ParseGit(r.url())
		_, err := g.Fetch(ctx, filepath.Join(t.TempDir(), "co"), FetchOptions{Env: r.env})
		require.ErrorIs(t, err, context.Canceled)
	})
}

// TestFetchOverHTTP serves the bare repository through git http-backend
// behind httptest (smart HTTP on 127.0.0.1), with a SHA pin and a sub path.
func TestFetchOverHTTP(t *testing.T) {
	r := newRepo(t)
	first := r.commit("main", map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "other/file.txt": "x\n"})
	r.commit("main", map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + "two\n"})
	execPath := r.git(r.work, "--exec-path")
	backend := filepath.Join(execPath, "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skip("git-http-backend is not installed")
	}
	srv := httptest.NewServer(&cgi.Handler{Path: backend, Env: []string{
		"GIT_PROJECT_ROOT=" + filepath.Dir(r.bare), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1"}})
	defer srv.Close()
	g, ok, err := ParseGit(srv.URL + "/r.git#" + first)
	require.True(t, ok)
	require.NoError(t, err)
	g.Subdir = "skills/alpha"
	f, err := g.Fetch(context.Background(), filepath.Join(t.TempDir(), "co"), FetchOptions{Env: r.env})
	require.NoError(t, err)
	assert.Equal(t, first, f.Commit)
	b, err := os.ReadFile(filepath.Join(f.Root, "SKILL.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "two")
	assert.NoDirExists(t, filepath.Join(f.Dir, "other"))

	g, _, _ = ParseGit(srv.URL + "/missing.git")
	_, err = g.Fetch(context.Background(), filepath.Join(t.TempDir(), "co"), FetchOptions{Env: r.env})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "repository not found")
}

func TestInsecure(t *testing.T) {
	for arg, want := range map[string]bool{
		"http://mirror.lan/skills.zip": true, "git+http://10.0.0.5/r.git": true, "HTTP://example.com": true,
		"http://127.0.0.1:8080/r.git": false, "http://localhost/x": false, "http://[::1]/x": false,
		"https://example.com": false, "acme/skills": false, "./http:/x": false,
	} {
		assert.Equal(t, want, Insecure(arg), arg)
	}
}
