package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/internal/golden"
	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/pkg/skill"
)

// parseCommand runs args through the real root command, with the named
// command built around a runF that captures its options instead of running.
// It returns the options, or the error the flags and arguments gave.
func parseCommand[O any](f *Factory, name string, build func(*Factory, func(context.Context, *O) error) *cobra.Command, args ...string) (*O, error) {
	var got *O
	root := NewRootCmd(f)
	for _, c := range root.Commands() {
		if c.Name() == name {
			root.RemoveCommand(c)
		}
	}
	c := build(f, func(_ context.Context, o *O) error { got = o; return nil })
	if c.Args != nil {
		c.Args = wrapArgs(c.Args)
	}
	root.AddCommand(c)
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	err := root.Execute()
	return got, err
}

// testEnv is a scratch HOME with a few skills and an environment lookup.
type testEnv struct {
	home string
	env  map[string]string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	home := t.TempDir()
	e := &testEnv{home: home, env: map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}}
	e.skill(t, ".claude/skills/alpha", "---\nname: alpha\ndescription: Does alpha things, described at some length so that a narrow terminal has to cut it.\nlicense: MIT\nmetadata:\n  version: \"1.2\"\n---\n# Alpha\n\nUse alpha.\n")
	e.skill(t, ".claude/skills/beta", "---\nname: beta\ndescription: Beta.\nmode: direct\n---\nBeta body.\n")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".claude/skills/alpha/scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".claude/skills/alpha/scripts/run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	return e
}

func (e *testEnv) skill(t *testing.T, rel, content string) {
	t.Helper()
	dir := filepath.Join(e.home, rel)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(content), 0o644))
}

// run runs skillctl in the test env with stdout a terminal or not.
func (e *testEnv) run(t *testing.T, tty bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.SetTTY(tty)
	ios.SetWidth(100)
	t.Chdir(e.home)
	code = Run(context.Background(), args, ios, func(k string) string { return e.env[k] })
	return code, strings.ReplaceAll(out.String(), e.home, "$HOME"), strings.ReplaceAll(errOut.String(), e.home, "$HOME")
}

func TestListPipeAndTerminal(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.run(t, false, "list")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "alpha\tuser\tsandbox\tDoes alpha things, described at some length so that a narrow terminal has to cut it.\t$HOME/.claude/skills/alpha\tclaude,opencode\t-\n"+
		"beta\tuser\tdirect\tBeta.\t$HOME/.claude/skills/beta\tclaude,opencode\t-\n", out, "a pipe gets rows without header or color")
	assert.Empty(t, errOut)

	code, out, _ = e.run(t, true, "list", "--color", "never")
	require.Equal(t, 0, code)
	golden.Assert(t, "testdata/list_tty.golden", []byte(out))
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		assert.LessOrEqual(t, len([]rune(line)), 100, "rows fit the terminal: %q", line)
	}

	code, out, _ = e.run(t, true, "list", "--color", "always")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "\x1b[", "--color always colors the header")
	e.env["NO_COLOR"] = "1"
	_, out, _ = e.run(t, true, "list")
	assert.NotContains(t, out, "\x1b[", "NO_COLOR turns color off")
}

func TestListJSONAndFilters(t *testing.T) {
	e := newTestEnv(t)
	proj := filepath.Join(e.home, "work")
	require.NoError(t, os.MkdirAll(filepath.Join(proj, ".git"), 0o755))
	e.skill(t, "work/.claude/skills/alpha", "---\nname: alpha\ndescription: Project alpha.\n---\n")
	e.skill(t, "work/.claude/skills/broken", "no frontmatter\n")

	code, out, errOut := e.run(t, false, "-C", "work", "list", "--json")
	require.Equal(t, 0, code)
	assert.Equal(t, "warning: skipped $HOME/work/.claude/skills/broken: line 1: SKILL.md must start with YAML frontmatter (a first line '---')\n", errOut)
	var sums []skill.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &sums))
	require.Len(t, sums, 2)
	assert.Equal(t, "project:alpha", sums[0].ID)
	assert.Equal(t, "user:beta", sums[1].ID)

	_, out, _ = e.run(t, false, "-C", "work", "list", "--all", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &sums))
	var got []string
	for _, s := range sums {
		got = append(got, s.ID+"="+s.Status+":"+s.ShadowedBy)
	}
	assert.Equal(t, []string{"user:alpha=shadowed:project:alpha", "project:alpha=ok:", "user:beta=ok:", "project:broken=broken:"}, got)

	_, out, _ = e.run(t, false, "-C", "work", "list", "--source", "user")
	assert.Equal(t, "beta\tuser\tdirect\tBeta.\t$HOME/.claude/skills/beta\tclaude,opencode\t-\n", out, "--source filters the effective list")

	code, _, errOut = e.run(t, false, "list", "--source", "nowhere")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--source must be one of")
	assert.Contains(t, errOut, "Usage: skillctl list")
}

func TestShow(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.run(t, true, "show", "alpha", "--color", "never")
	require.Equal(t, 0, code, errOut)
	golden.Assert(t, "testdata/show_tty.golden", []byte(out))

	for _, arg := range []string{"user:alpha", ".claude/skills/alpha", ".claude/skills/alpha/SKILL.md"} {
		code, out2, _ := e.run(t, true, "show", arg, "--color", "never")
		require.Equal(t, 0, code, arg)
		if arg == "user:alpha" {
			assert.Equal(t, out, out2)
		} else {
			assert.Contains(t, out2, "alpha (path:alpha)", "a path loads the folder as a path skill")
		}
	}

	code, out, _ = e.run(t, false, "show", "alpha", "--raw")
	require.Equal(t, 0, code)
	raw, _ := os.ReadFile(filepath.Join(e.home, ".claude/skills/alpha/SKILL.md"))
	assert.Equal(t, string(raw), out)

	code, out, _ = e.run(t, false, "show", "alpha", "--file", "scripts/run.sh")
	require.Equal(t, 0, code)
	assert.Equal(t, "#!/bin/sh\necho hi\n", out)

	code, out, _ = e.run(t, false, "show", "alpha", "--json")
	require.Equal(t, 0, code)
	var def skill.Definition
	require.NoError(t, json.Unmarshal([]byte(out), &def))
	assert.Equal(t, "user:alpha", def.ID)
	assert.Equal(t, "1.2", def.Version)
	assert.Equal(t, "# Alpha\n\nUse alpha.\n", def.Content)
	assert.Equal(t, "Alpha Use alpha.", def.Summary)
	assert.Equal(t, map[string]any{"version": "1.2"}, def.Metadata["metadata"])
	assert.Equal(t, 2, def.FileInventory.TotalFiles)
	assert.Equal(t, "scripts/run.sh", def.Files[1].Path)
	assert.Equal(t, "script", def.Files[1].Type)
}

func TestShowErrors(t *testing.T) {
	e := newTestEnv(t)
	e.skill(t, ".claude/skills/broken", "---\nname: [x\n---\n")
	code, _, errOut := e.run(t, false, "show", "alpah")
	assert.Equal(t, ExitNotFound, code)
	assert.Equal(t, "Error: no skill named \"alpah\"; did you mean alpha?\n", errOut)

	code, _, errOut = e.run(t, false, "show", "broken")
	assert.Equal(t, ExitFailure, code)
	assert.Contains(t, errOut, "skill user:broken cannot be loaded")
	assert.Contains(t, errOut, "invalid YAML")

	for _, rel := range []string{"../../etc/passwd", "/etc/passwd", "../beta/SKILL.md"} {
		code, out, errOut := e.run(t, false, "show", "alpha", "--file", rel)
		assert.Equal(t, ExitDenied, code, rel)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "leaves the skill folder", rel)
	}
	code, _, errOut = e.run(t, false, "show", "alpha", "--file", "nope.txt")
	assert.Equal(t, ExitNotFound, code)
	assert.Contains(t, errOut, "no file \"nope.txt\"")

	code, _, _ = e.run(t, false, "show")
	assert.Equal(t, ExitUsage, code)
	code, _, _ = e.run(t, false, "show", "./missing-dir")
	assert.Equal(t, ExitNotFound, code)
}

func TestExitCodeMapping(t *testing.T) {
	e := newTestEnv(t)
	code, _, errOut := e.run(t, false, "list", "--bogus")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "unknown flag --bogus for skillctl list;")
	code, _, _ = e.run(t, false, "no-such-command")
	assert.Equal(t, ExitUsage, code)
	code, _, errOut = e.run(t, false, "list", "--color", "purple")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--color must be")
	code, _, errOut = e.run(t, false, "list", "--agent", "vim")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--agent must be one of")
	code, out, _ := e.run(t, false, "version")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "skillctl "))
	code, _, errOut = e.run(t, false, "--config", "missing.yaml", "list")
	assert.Equal(t, ExitFailure, code)
	assert.Contains(t, errOut, "missing.yaml: config file does not exist")
}

func TestConfigPathsAndAgents(t *testing.T) {
	e := newTestEnv(t)
	e.skill(t, "extra/gamma", "---\nname: gamma\ndescription: From config paths.\n---\n")
	e.skill(t, ".agents/skills/delta", "---\nname: delta\ndescription: Agents folder.\n---\n")
	require.NoError(t, os.MkdirAll(filepath.Join(e.home, ".config/skillctl"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.home, ".config/skillctl/config.yaml"), []byte("paths: [../../extra]\nagents: [agents]\n"), 0o644))
	_, out, errOut := e.run(t, false, "list")
	assert.Empty(t, errOut)
	assert.Contains(t, out, "gamma\tpath\t")
	assert.Contains(t, out, "delta\tuser\t")
	assert.NotContains(t, out, "alpha", "config agents: [agents] leaves .claude folders out")
	_, out, _ = e.run(t, false, "list", "--agent", "claude")
	assert.Contains(t, out, "alpha", "--agent overrides config agents")
}

// A long listing is written one item at a time, byte for byte as the
// whole slice would be.
func TestWriteJSONArrayMatchesWriteJSON(t *testing.T) {
	for _, items := range [][]map[string]any{nil, {{"a": "<b>", "n": 1}}, {{"a": "x"}, {"b": []int{1, 2}}, {}}} {
		var want, got bytes.Buffer
		list := items
		if list == nil {
			list = []map[string]any{}
		}
		require.NoError(t, writeJSON(&want, list))
		require.NoError(t, writeJSONArray(&got, len(items), func(i int) map[string]any { return items[i] }))
		assert.Equal(t, want.String(), got.String())
	}
}
