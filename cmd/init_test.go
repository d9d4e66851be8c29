package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/pkg/scaffold"
)

func TestInitFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, o *initOptions)
	}{
		{name: "defaults", args: []string{"init", "my-skill"}, check: func(t *testing.T, o *initOptions) {
			assert.Equal(t, "my-skill", o.Name)
			assert.Equal(t, "sandbox", o.Mode)
			assert.Empty(t, o.Dir)
			assert.Empty(t, o.Resources)
		}},
		{name: "all flags", args: []string{"init", "notes", "--dir", "skills", "--description", "Takes notes.", "--mode", "direct",
			"--resources", "references,assets", "--resources", "scripts", "--license", "MIT", "--json"},
			check: func(t *testing.T, o *initOptions) {
				assert.Equal(t, "skills", o.Dir)
				assert.Equal(t, "Takes notes.", o.Description)
				assert.Equal(t, "direct", o.Mode)
				assert.Equal(t, []string{"references", "assets", "scripts"}, o.Resources)
				assert.Equal(t, "MIT", o.License)
				assert.True(t, o.JSON)
			}},
		{name: "no name", args: []string{"init"}, wantErr: "skillctl init needs <name>"},
		{name: "invalid name", args: []string{"init", "My_Skill"}, wantErr: `invalid skill name "My_Skill": it must be lowercase`},
		{name: "path for a name", args: []string{"init", "a/b"}, wantErr: "it is a path, not a name"},
		{name: "bad mode", args: []string{"init", "x", "--mode", "fast"}, wantErr: `--mode must be sandbox or direct, not "fast"`},
		{name: "bad resource", args: []string{"init", "x", "--resources", "scripts,docs"}, wantErr: `--resources takes scripts, references, assets, not "docs"`},
		{name: "empty description", args: []string{"init", "x", "--description", " "}, wantErr: "--description cannot be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := NewFactory(ios, func(string) string { return "" })
			got, err := parseCommand(f, "init", newInitCmd, tt.args...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Equal(t, ExitUsage, ExitCodeOf(err))
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got)
			tt.check(t, got)
		})
	}
}

func TestInitRun(t *testing.T) {
	dir := t.TempDir()
	ios, _, out, errOut := iostreams.Test()
	o := &initOptions{IO: ios, Cwd: func() (string, error) { return dir, nil }, Name: "greeter", Mode: "sandbox", Dir: "skills"}
	require.NoError(t, initRun(context.Background(), o))
	want := filepath.Join(dir, "skills", "greeter")
	assert.Equal(t, want+"\n", out.String(), "stdout carries the new folder's path")
	assert.Contains(t, errOut.String(), "Created the sandbox skill greeter with SKILL.md, scripts/run.sh.\n")
	_, err := os.Stat(filepath.Join(want, "scripts", "run.sh"))
	require.NoError(t, err)

	// A second time: the folder is not empty.
	out.Reset()
	err = initRun(context.Background(), o)
	require.Error(t, err)
	assert.True(t, errors.Is(err, scaffold.ErrExists))
	assert.Equal(t, ExitFailure, ExitCodeOf(err))
	assert.Empty(t, out.String())

	// --json
	ios, _, out, errOut = iostreams.Test()
	o = &initOptions{IO: ios, Cwd: func() (string, error) { return dir, nil }, Name: "notes", Mode: "direct", JSON: true, Quiet: true}
	require.NoError(t, initRun(context.Background(), o))
	var res map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	assert.Equal(t, "notes", res["name"])
	assert.Equal(t, filepath.Join(dir, "notes"), res["path"])
	assert.Equal(t, "direct", res["mode"])
	assert.Equal(t, []any{"SKILL.md"}, res["files"])
	assert.Empty(t, errOut.String())
}
