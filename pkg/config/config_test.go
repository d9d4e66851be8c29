package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path, content string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestLoadMergesInOrder(t *testing.T) {
	base := t.TempDir()
	user := write(t, filepath.Join(base, "xdg", "skillctl", "config.yaml"), `
paths: [~/x, rel]
agents: [claude]
disabled: [old-*]
permissions:
  "*": ask
run:
  defaultMode: direct
  timeout: 10s
`)
	proj := write(t, filepath.Join(base, "repo", FileName), `
agents: [codex, agents]
permissions:
  deploy-*: deny
run:
  timeout: 45000
  enableDirectMode: false
  isolation: bwrap
`)
	cwd := filepath.Join(base, "repo", "a", "b")
	require.NoError(t, os.MkdirAll(cwd, 0o755))
	files := Locate(filepath.Join(base, "xdg"), "", cwd, "")
	require.Equal(t, []string{user, proj}, files)

	c, err := Load(files...)
	require.NoError(t, err)
	assert.Equal(t, []string{"codex", "agents"}, c.Agents, "later file wins")
	assert.Equal(t, filepath.Join(base, "xdg", "skillctl", "rel"), c.Paths[1], "relative paths are relative to their file")
	assert.Equal(t, "direct", c.Run.DefaultMode)
	assert.Equal(t, 45*time.Second, c.Run.Timeout)
	assert.False(t, c.DirectModeEnabled())
	assert.Equal(t, "bwrap", c.Run.Isolation)
	act, rule := c.Permission("deploy-prod", "user:deploy-prod")
	assert.Equal(t, Deny, act, "later files' rules are checked first")
	assert.Equal(t, proj, rule.File)
	act, _ = c.Permission("other", "user:other")
	assert.Equal(t, Ask, act)
	assert.True(t, c.IsDisabled("old-thing", "user:old-thing"))
	assert.False(t, c.IsDisabled("new", "user:new"))
}

func TestConfigErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name, content, want string
		line                int
	}{
		{"unknown key", "paths: []\ncolour: red\n", `unknown key "colour"`, 2},
		{"unknown run key", "run:\n  defaultMode: direct\n  timout: 3\n", "unknown key run.timout", 3},
		{"bad mode", "run:\n  defaultMode: fast\n", "sandbox or direct", 2},
		{"bad permission", "permissions:\n  x: maybe\n", "allow, ask or deny", 2},
		{"bad agent", "agents: [vim]\n", "unknown agent", 1},
		{"bad timeout", "run:\n  timeout: soon\n", "not a duration", 2},
		{"timeout out of range", "run:\n  timeout: 25h\n", "out of range", 2},
		{"timeout in ms out of range", "run:\n  timeout: 99999999999999999999\n", "out of range", 2},
		{"bad yaml", "paths: [\n", "invalid YAML", 1},
		{"not a map", "- a\n", "mapping", 1},
		{"duplicate", "agents: [claude]\nagents: [codex]\n", "twice", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, filepath.Join(t.TempDir(), "c.yaml"), tt.content)
			_, err := Load(p)
			var ce *Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, p, ce.File)
			assert.Equal(t, tt.line, ce.Line)
			assert.Contains(t, ce.Error(), tt.want)
			assert.Contains(t, ce.Error(), p)
		})
	}
}

func TestMissingExplicitConfig(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	assert.ErrorContains(t, err, "does not exist")
}

func TestEmptyConfig(t *testing.T) {
	c, err := Load(write(t, filepath.Join(t.TempDir(), "c.yaml"), "# nothing\n"))
	require.NoError(t, err)
	assert.True(t, c.DirectModeEnabled())
}

func TestMatchPattern(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"*", "x", true}, {"a*", "abc", true}, {"*c", "abc", true}, {"a*c", "abc", true}, {"a*c", "ab", false},
		{"a*b*c", "aXbYc", true}, {"abc", "abc", true}, {"abc", "abcd", false}, {"ab*b", "ab", false},
	} {
		assert.Equal(t, tc.want, MatchPattern(tc.p, tc.s), tc.p+" ~ "+tc.s)
	}
}
