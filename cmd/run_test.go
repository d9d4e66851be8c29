package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/pkg/run"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, o *runOptions)
		err   string
	}{
		{name: "inputs and arguments", args: []string{"hello", "--input", "a=1", "-i", "b.c=x", "--input-json", "@in.json", "--", "one", "two words"},
			check: func(t *testing.T, o *runOptions) {
				assert.Equal(t, "hello", o.Name)
				assert.Equal(t, []string{"a=1", "b.c=x"}, o.Inputs)
				assert.Equal(t, "@in.json", o.InputJSON)
				assert.Equal(t, []string{"one", "two words"}, o.Args)
			}},
		{name: "sandbox flags", args: []string{"hello", "--mode", "sandbox", "--timeout", "5s", "--entry", "scripts/x.sh", "--workdir", "out",
			"--allow", "network", "--env", "TOKEN", "--env", "OTHER", "--isolation", "landlock", "--yes"},
			check: func(t *testing.T, o *runOptions) {
				assert.Equal(t, "sandbox", o.Mode)
				assert.Equal(t, 5*time.Second, o.Timeout)
				assert.Equal(t, "scripts/x.sh", o.Entry)
				assert.Equal(t, "out", o.Workdir)
				assert.Equal(t, []string{"network"}, o.Allow)
				assert.Equal(t, []string{"TOKEN", "OTHER"}, o.Env)
				assert.Equal(t, "landlock", o.Isolation)
				assert.True(t, o.Yes)
				assert.NotEmpty(t, o.Self, "the helper is skillctl itself")
			}},
		{name: "timeout in milliseconds", args: []string{"hello", "--timeout", "250", "--mode", "direct", "--allow-missing"},
			check: func(t *testing.T, o *runOptions) {
				assert.Equal(t, 250*time.Millisecond, o.Timeout)
				assert.True(t, o.AllowMissing)
			}},
		{name: "bad mode", args: []string{"hello", "--mode", "fast"}, err: "--mode must be auto, sandbox or direct"},
		{name: "bad isolation", args: []string{"hello", "--isolation", "docker"}, err: "--isolation must be one of"},
		{name: "bad allow", args: []string{"hello", "--allow", "fs"}, err: "--allow takes network"},
		{name: "bad env", args: []string{"hello", "--env", "A=B"}, err: "--env takes a variable name"},
		{name: "bad timeout", args: []string{"hello", "--timeout", "soon"}, err: "--timeout"},
		{name: "arguments without --", args: []string{"hello", "extra"}, err: "pass arguments for the skill after --"},
		{name: "no name before --", args: []string{"--", "x"}, err: "name the skill before --"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := NewFactory(ios, func(string) string { return "" })
			got, err := parseCommand(f, "run", newRunCmd, append([]string{"run"}, tt.args...)...)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				var fe *FlagError
				assert.True(t, errors.As(err, &fe), "a usage error")
				return
			}
			require.NoError(t, err)
			tt.check(t, got)
		})
	}
}

// runCLI runs skillctl in-process with HOME and XDG_STATE_HOME in a temp folder.
func runCLI(t *testing.T, tty bool, stdin string, args ...string) (int, string, string, string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state")}
	ios, in, out, errOut := iostreams.Test()
	ios.SetTTY(tty)
	in.WriteString(stdin)
	code := Run(context.Background(), args, ios, func(k string) string { return env[k] })
	return code, out.String(), errOut.String(), filepath.Join(home, "state", "skillctl", run.RecordsFile)
}

func writeTestSkill(t *testing.T, md string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "s")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644))
	return dir
}

func TestRunDirectJSON(t *testing.T) {
	code, out, errOut, records := runCLI(t, false, "", "run", "../testdata/examples/release-notes", "--json",
		"--input", "version=2.1", "--input", "product=Acme", "--input", "changes=- faster")
	require.Equal(t, 0, code, errOut)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "direct", doc["mode"])
	assert.Contains(t, doc["content"], "# Release notes for 2.1")
	assert.Contains(t, doc["content"], "**Acme 2.1**")
	md := doc["metadata"].(map[string]any)
	assert.Equal(t, "release-notes", md["skillName"])
	assert.True(t, strings.HasSuffix(md["sourcePath"].(string), filepath.Join("release-notes", "SKILL.md")))
	_, err := time.Parse(time.RFC3339, md["generatedAt"].(string))
	assert.NoError(t, err)
	data, err := os.ReadFile(records)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(data), "\n"), "one record")
	assert.Contains(t, string(data), `"status":"completed"`)
}

func TestRunMissingInputExit2(t *testing.T) {
	code, out, errOut, _ := runCLI(t, false, "", "run", "../testdata/examples/release-notes", "--json", "--input", "version=2.1")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "missing input for product, changes")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "SkillError", doc["name"])
	assert.Equal(t, "input", doc["details"].(map[string]any)["cause"])
}

func TestRunDangerousConfirmation(t *testing.T) {
	dir := writeTestSkill(t, "---\nname: wipe\ndescription: Wipes.\nmode: direct\ndangerous: true\nconfirm: Really wipe?\n---\nWiping.\n")
	tests := []struct {
		name  string
		tty   bool
		stdin string
		args  []string
		code  int
	}{
		{name: "no terminal", code: ExitDenied},
		{name: "no terminal, --yes", args: []string{"--yes"}, code: 0},
		{name: "terminal, yes", tty: true, stdin: "y\n", code: 0},
		{name: "terminal, no", tty: true, stdin: "n\n", code: ExitDenied},
		{name: "terminal, nothing typed", tty: true, code: ExitDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut, _ := runCLI(t, tt.tty, tt.stdin, append([]string{"run", dir}, tt.args...)...)
			assert.Equal(t, tt.code, code, errOut)
			if tt.code == 0 {
				assert.Equal(t, "Wiping.\n", out)
				return
			}
			assert.Empty(t, out)
			if tt.tty {
				assert.Contains(t, errOut, "Run wipe (the skill is marked dangerous)?\n  The skill's own words: \u201cReally wipe?\u201d [y/N]")
			} else {
				assert.Contains(t, errOut, "pass --yes")
			}
		})
	}
}

func TestRunDenyRuleAndDisabledDirectMode(t *testing.T) {
	dir := writeTestSkill(t, "---\nname: notes\ndescription: Notes.\nmode: direct\n---\nHi.\n")
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("permissions:\n  not*: deny\n"), 0o644))
	code, out, errOut, _ := runCLI(t, false, "", "run", dir, "--config", cfg)
	assert.Equal(t, ExitDenied, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `denied by permission rule "not*": deny (`+cfg+`:2)`)

	require.NoError(t, os.WriteFile(cfg, []byte("run:\n  enableDirectMode: false\n"), 0o644))
	code, _, errOut, _ = runCLI(t, false, "", "run", dir, "--config", cfg)
	assert.Equal(t, ExitDenied, code)
	assert.Contains(t, errOut, "direct mode is disabled")
}

func TestRunSandboxUnavailableExit125(t *testing.T) {
	dir := writeTestSkill(t, "---\nname: box\ndescription: Box.\n---\nBody.\n")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\necho ran\n"), 0o755))
	tier := run.TierSeatbelt
	if runtime.GOOS == "darwin" {
		tier = run.TierBwrap
	}
	code, out, errOut, _ := runCLI(t, false, "", "run", dir, "--isolation", tier, "--json")
	assert.Equal(t, ExitSandbox, code)
	assert.Contains(t, errOut, "no sandbox could be set up")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "sandbox", doc["details"].(map[string]any)["cause"])
	assert.NotContains(t, out, "ran")
}
