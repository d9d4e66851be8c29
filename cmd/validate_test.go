package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/internal/iostreams"
)

func TestValidateFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		json    bool
		wantErr string
		check   func(t *testing.T, o *validateOptions)
	}{
		{name: "defaults", args: nil, check: func(t *testing.T, o *validateOptions) {
			assert.Equal(t, "default", o.Profile)
			assert.Equal(t, "text", o.Format)
			assert.False(t, o.Strict)
			assert.Empty(t, o.Paths)
		}},
		{name: "all flags", args: []string{"a", "b", "--profile", "spec", "--strict", "--format", "sarif"}, check: func(t *testing.T, o *validateOptions) {
			assert.Equal(t, []string{"a", "b"}, o.Paths)
			assert.Equal(t, "spec", o.Profile)
			assert.Equal(t, "sarif", o.Format)
			assert.True(t, o.Strict)
		}},
		{name: "--json", json: true, check: func(t *testing.T, o *validateOptions) { assert.Equal(t, "json", o.Format) }},
		{name: "--json with --format json", args: []string{"--format", "json"}, json: true},
		{name: "--json with --format text", args: []string{"--format", "text"}, json: true, wantErr: "cannot be used together"},
		{name: "bad profile", args: []string{"--profile", "strict"}, wantErr: "--profile must be one of"},
		{name: "bad format", args: []string{"--format", "xml"}, wantErr: "--format must be one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := NewFactory(ios, func(string) string { return "" })
			args := append([]string{"validate"}, tt.args...)
			if tt.json {
				args = append(args, "--json")
			}
			got, err := parseCommand(f, "validate", newValidateCmd, args...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Equal(t, ExitUsage, ExitCodeOf(err))
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got)
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

// fixture returns a path under pkg/validate/testdata.
func fixture(parts ...string) string {
	return filepath.Join(append([]string{"..", "pkg", "validate", "testdata"}, parts...)...)
}

func runValidate(t *testing.T, tty bool, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.SetTTY(tty)
	ios.ColorPolicy = iostreams.ColorNever
	code := Run(context.Background(), append([]string{"validate"}, args...), ios, func(k string) string {
		if k == "HOME" {
			return t.TempDir()
		}
		return ""
	})
	return code, out.String(), errOut.String()
}

func TestValidateExitCodes(t *testing.T) {
	valid := fixture("01-valid", "my-skill")
	broken := fixture("33-dir-mismatch", "wrong-name")
	warns := fixture("38-allowed-tools-list", "my-skill")

	code, out, errOut := runValidate(t, false, valid)
	assert.Equal(t, 0, code)
	assert.Equal(t, "1 skill(s) validated, 0 failed\n", out)
	assert.Empty(t, errOut)

	code, out, _ = runValidate(t, false, valid, broken)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, filepath.Join(broken, "SKILL.md")+":2:7: error name-dir-mismatch ")
	assert.True(t, strings.HasSuffix(out, "2 skill(s) validated, 1 failed\n"), out)
	assert.NotContains(t, out, "hint:", "no hints in a pipe")

	code, _, _ = runValidate(t, false, warns)
	assert.Equal(t, 0, code)
	code, out, _ = runValidate(t, false, "--strict", warns)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "1 failed")

	code, _, errOut = runValidate(t, false, fixture("does-not-exist"))
	assert.Equal(t, 3, code)
	assert.Contains(t, errOut, "no such file or folder")

	code, _, errOut = runValidate(t, false, "--profile", "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "Usage:")
}

func TestValidateTextOnTerminal(t *testing.T) {
	code, out, errOut := runValidate(t, true, "--color", "never", fixture("33-dir-mismatch", "wrong-name"))
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "    hint: rename the folder")
	assert.Empty(t, errOut, "a short run shows no progress line")
}

func TestValidateQuietHidesInfo(t *testing.T) {
	p := fixture("17-flow-mapping", "my-skill")
	_, out, _ := runValidate(t, false, p)
	assert.Contains(t, out, "info yaml-flow-style")
	_, out, _ = runValidate(t, false, "-q", p)
	assert.NotContains(t, out, "yaml-flow-style")
	_, out, _ = runValidate(t, false, "-q", "--json", p)
	assert.NotContains(t, out, "yaml-flow-style")
}

func TestValidateJSONAndSARIF(t *testing.T) {
	code, out, _ := runValidate(t, false, "--json", "--profile", "spec", fixture("35-claude-code-field", "my-skill"))
	assert.Equal(t, 1, code)
	var rep struct {
		Profile string
		Valid   bool
		Skills  []struct {
			Findings []struct{ Rule, Severity string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "spec", rep.Profile)
	assert.False(t, rep.Valid)
	require.Len(t, rep.Skills, 1)
	require.Len(t, rep.Skills[0].Findings, 1)
	assert.Equal(t, "unknown-field", rep.Skills[0].Findings[0].Rule)

	code, out, _ = runValidate(t, false, "--format", "sarif", fixture("01-valid", "my-skill"))
	assert.Equal(t, 0, code)
	var log struct{ Version string }
	require.NoError(t, json.Unmarshal([]byte(out), &log))
	assert.Equal(t, "2.1.0", log.Version)
}

func TestValidateDiscovered(t *testing.T) {
	home := t.TempDir()
	skills := filepath.Join(home, ".claude", "skills")
	require.NoError(t, os.MkdirAll(filepath.Join(skills, "good"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skills, "good", "SKILL.md"),
		[]byte("---\nname: good\ndescription: Good skill. Use when testing.\n---\nBody\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(skills, "bad"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skills, "bad", "SKILL.md"), []byte("no frontmatter\n"), 0o644))
	ios, _, out, _ := iostreams.Test()
	t.Chdir(home)
	code := Run(context.Background(), []string{"validate"}, ios, func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	assert.Equal(t, 1, code)
	assert.Contains(t, out.String(), filepath.Join(skills, "bad", "SKILL.md")+":1:1: error frontmatter-missing")
	assert.Contains(t, out.String(), "2 skill(s) validated, 1 failed")
}

func TestValidateProgress(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	ios.SetTTY(true)
	opts := &validateOptions{IO: ios, Profile: "default", Format: "text", Paths: []string{fixture("01-valid", "my-skill")}}
	// Zero delay: the progress line shows at once and is cleared at the end.
	opts.ProgressAfter = 0
	require.NoError(t, validateRun(context.Background(), opts))
	assert.Contains(t, errOut.String(), "validating…")
	assert.True(t, strings.HasSuffix(errOut.String(), "\r\033[K"), "%q", errOut.String())

	ios.SetStderrTTY(false)
	errOut.Reset()
	opts.ProgressAfter = time.Duration(0)
	require.NoError(t, validateRun(context.Background(), opts))
	assert.Empty(t, errOut.String(), "no progress without a terminal")
}
