package config

import (
	"os"
	"path/filepath"
	"runtime"
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
  timeout: 5000
  enableDirectMode: false
  isolation: bwrap
`)
	cwd := filepath.Join(base, "repo", "a", "b")
	require.NoError(t, os.MkdirAll(cwd, 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(base, "repo", ".git"), 0o755))
	files := Locate(filepath.Join(base, "xdg"), "", cwd, "")
	require.Equal(t, []File{{Path: user}, {Path: proj, Project: true}}, files)

	c, err := Load(files...)
	require.NoError(t, err)
	assert.Equal(t, []string{"codex", "agents"}, c.Agents, "later file wins")
	assert.Equal(t, filepath.Join(base, "xdg", "skillctl", "rel"), c.Paths[1], "relative paths are relative to their file")
	assert.Equal(t, "direct", c.Run.DefaultMode)
	assert.Equal(t, 5*time.Second, c.Run.Timeout)
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
		{"validate not a map", "validate: strict\n", "validate must be a mapping", 1},
		{"unknown validate key", "validate:\n  rule: {}\n", "unknown key validate.rule", 2},
		{"bad rule level", "validate:\n  rules:\n    unknown-field: loud\n", `not "loud"`, 3},
		{"rule level false", "validate:\n  rules:\n    unknown-field: false\n", "write off", 3},
		{"rules not a map", "validate:\n  rules: [a]\n", "map rule ids", 2},
		{"empty exclude", "validate:\n  exclude:\n    - \" \"\n", "empty", 3},
		{"exclude not a list", "validate:\n  exclude: {a: b}\n", "list of patterns", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, filepath.Join(t.TempDir(), "c.yaml"), tt.content)
			_, err := Load(File{Path: p})
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
	_, err := Load(File{Path: filepath.Join(t.TempDir(), "nope.yaml"), Explicit: true})
	assert.ErrorContains(t, err, "does not exist")
}

func TestEmptyConfig(t *testing.T) {
	c, err := Load(File{Path: write(t, filepath.Join(t.TempDir(), "c.yaml"), "# nothing\n")})
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

// Attack 16: a .skillctl.yaml in any parent folder, up to /, was read; one
// planted in /tmp made a root user's run unsandboxed. The search stops at
// the repository top (cwd only outside one); and a project file may only
// tighten: what would loosen is ignored with a warning naming file and line.
func TestProjectConfigScopeAndTightening(t *testing.T) {
	base := t.TempDir()
	write(t, filepath.Join(base, FileName), "run:\n  isolation: none\n")
	cwd := filepath.Join(base, "work")
	require.NoError(t, os.MkdirAll(cwd, 0o755))
	assert.Empty(t, Locate("", "", cwd, ""), "outside a repository only the working folder counts")

	repo := filepath.Join(base, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "sub"), 0o755))
	assert.Empty(t, Locate("", "", filepath.Join(repo, "sub"), ""), "never above the repository top")

	user := write(t, filepath.Join(base, "user.yaml"), "run:\n  timeout: 10s\n  enableDirectMode: false\n")
	proj := write(t, filepath.Join(repo, FileName), `paths: [skills, ../elsewhere]
permissions:
  "*": allow
  deploy-*: deny
run:
  isolation: none
  confirmDangerous: false
  timeout: 1h
  enableDirectMode: true
`)
	files := Locate("", "", filepath.Join(repo, "sub"), user)
	require.Equal(t, []File{{Path: proj, Project: true}, {Path: user, Explicit: true}}, files)
	// The project file is read after the user's own here, to see it tighten.
	c, err := Load(File{Path: user}, File{Path: proj, Project: true})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(repo, "skills")}, c.Paths)
	act, _ := c.Permission("anything", "user:anything")
	assert.Equal(t, "", act, "allow from a project is ignored")
	act, _ = c.Permission("deploy-x", "user:deploy-x")
	assert.Equal(t, Deny, act, "deny from a project applies")
	assert.Equal(t, "", c.Run.Isolation)
	assert.Nil(t, c.Run.ConfirmDangerous)
	assert.Equal(t, 10*time.Second, c.Run.Timeout)
	assert.False(t, c.DirectModeEnabled())
	require.Len(t, c.Warnings, 6, "%v", c.Warnings)
	for _, w := range c.Warnings {
		assert.Contains(t, w, proj+":")
		assert.Contains(t, w, "may only tighten")
	}
}

// A config file owned by another user, or writable by others, is ignored
// with a warning (as git's safe.directory); --config is the user's choice.
func TestUntrustedConfigIgnored(t *testing.T) {
	dir := t.TempDir()
	open := write(t, filepath.Join(dir, "open.yaml"), "run:\n  isolation: none\n")
	require.NoError(t, os.Chmod(open, 0o666))
	if runtime.GOOS == "windows" {
		t.Skip("no Unix owner or mode on Windows")
	}
	c, err := Load(File{Path: open})
	require.NoError(t, err)
	assert.Equal(t, "", c.Run.Isolation)
	require.Len(t, c.Warnings, 1)
	assert.Contains(t, c.Warnings[0], "anyone may write to it")
	c, err = Load(File{Path: open, Explicit: true})
	require.NoError(t, err)
	assert.Equal(t, "none", c.Run.Isolation)
	if os.Getuid() == 0 {
		other := write(t, filepath.Join(dir, "other.yaml"), "run:\n  isolation: none\n")
		require.NoError(t, os.Chown(other, 65534, 65534))
		c, err = Load(File{Path: other})
		require.NoError(t, err)
		assert.Equal(t, "", c.Run.Isolation)
		assert.Contains(t, c.Warnings[0], "belongs to user 65534")
	}
}

func TestValidateSection(t *testing.T) {
	base := t.TempDir()
	user := write(t, filepath.Join(base, "xdg", "skillctl", "config.yaml"), `
validate:
  rules:
    unknown-field: info
    body-too-long: Warning
  exclude: vendor/
`)
	proj := write(t, filepath.Join(base, "repo", FileName), `
validate:
  rules:
    unknown-field: off
  exclude:
    - "**/testdata/"
    - /third_party
`)
	c, err := Load(File{Path: user}, File{Path: proj, Project: true})
	require.NoError(t, err)
	assert.Empty(t, c.Warnings, "validate settings are a lint preference: a project may set them")
	assert.Equal(t, map[string]string{"unknown-field": "off", "body-too-long": "warning"}, c.Validate.Levels())
	require.Len(t, c.Validate.Exclude, 3)
	assert.Equal(t, ExcludePattern{Glob: "vendor/", File: user, Line: 6}, c.Validate.Exclude[0],
		"the user's patterns are relative to the working folder's repository")
	assert.Equal(t, filepath.Dir(proj), c.Validate.Exclude[1].Base, "a project's are relative to its file")
	assert.Equal(t, 7, c.Validate.Exclude[2].Line)
}
