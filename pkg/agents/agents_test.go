package agents

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFoldersFollowTheTableInPrecedenceOrder(t *testing.T) {
	env := Env{Home: "/h", Getenv: func(string) string { return "" }}
	dirs := func(fs []Folder) (out []string) {
		for _, f := range fs {
			out = append(out, f.Dir)
		}
		return out
	}
	assert.Equal(t, []string{"/h/.claude/skills", "/h/.agents/skills", "/h/.config/opencode/skills"},
		dirs(UserFolders([]string{OpenCode}, env)), "opencode reads claude's and the standard folders too, in the fixed order")
	assert.Equal(t, []string{"/h/.claude/skills", "/h/.agents/skills", "/h/.codex/skills", "/h/.config/opencode/skills"},
		dirs(UserFolders(DefaultLoad, env)), "discovery covers every agent by default")
	assert.Equal(t, []string{"/p/.agents/skills"}, dirs(ProjectFolders([]string{Codex, Agents}, "/p")))
	got := UserFolders([]string{Claude, OpenCode}, env)
	assert.Equal(t, []string{Claude, OpenCode}, got[0].Agents, "a folder names every agent that loads it")
	assert.True(t, LoadsPlugins([]string{Agents, Claude}))
	assert.False(t, LoadsPlugins([]string{Codex}))
}

func TestInstallDir(t *testing.T) {
	env := Env{Home: "/h", Getenv: func(k string) string { return map[string]string{"CLAUDE_CONFIG_DIR": "/cfg"}[k] }}
	for name, want := range map[string]string{Claude: "/cfg/skills", Agents: "/h/.agents/skills", Codex: "/h/.codex/skills", OpenCode: "/h/.config/opencode/skills"} {
		d, err := InstallDir(name, false, "", env)
		require.NoError(t, err)
		assert.Equal(t, filepath.FromSlash(want), d, name)
	}
	d, err := InstallDir(Codex, true, "/repo", env)
	require.NoError(t, err)
	assert.Equal(t, filepath.FromSlash("/repo/.agents/skills"), d)
	_, err = InstallDir("cursor", false, "", env)
	var ue *UnknownError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "claude, agents, codex, opencode")
}

func TestProjectDirs(t *testing.T) {
	base := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(base, "r", ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "r", "a", "b"), 0o755))
	assert.Equal(t, filepath.Join(base, "r"), RepoTop(filepath.Join(base, "r", "a", "b")))
	assert.Equal(t, []string{filepath.Join(base, "r"), filepath.Join(base, "r", "a"), filepath.Join(base, "r", "a", "b")},
		ProjectDirs(filepath.Join(base, "r", "a", "b")))
	outside := filepath.Join(base, "x", "y")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	if RepoTop(outside) == "" {
		assert.Equal(t, []string{outside}, ProjectDirs(outside), "outside a repository, the working folder only")
	}
}
