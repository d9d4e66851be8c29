package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/pkg/index"
	"github.com/skillctl/skillctl/pkg/skill"
)

func TestIndexFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, o *indexOptions)
	}{
		{name: "defaults", args: []string{"index"}, check: func(t *testing.T, o *indexOptions) {
			assert.Equal(t, index.FormatXML, o.Format)
			assert.Equal(t, index.StyleAwareness, o.Style)
			assert.Empty(t, o.Paths)
		}},
		{name: "paths and markdown style", args: []string{"index", "a", "b", "--format", "markdown", "--style", "direct"},
			check: func(t *testing.T, o *indexOptions) {
				assert.Equal(t, []string{"a", "b"}, o.Paths)
				assert.Equal(t, index.FormatMarkdown, o.Format)
				assert.Equal(t, index.StyleDirect, o.Style)
			}},
		{name: "--json means the json format", args: []string{"index", "--json"}, check: func(t *testing.T, o *indexOptions) {
			assert.Equal(t, index.FormatJSON, o.Format)
		}},
		{name: "--json with --format json", args: []string{"index", "--json", "--format", "json"}, check: func(t *testing.T, o *indexOptions) {
			assert.Equal(t, index.FormatJSON, o.Format)
		}},
		{name: "--write", args: []string{"index", "--write", "AGENTS.md", "-q"}, check: func(t *testing.T, o *indexOptions) {
			assert.Equal(t, "AGENTS.md", o.Write)
			assert.True(t, o.Quiet)
		}},
		{name: "wellknown with --out", args: []string{"index", "--format", "wellknown", "--out", "site"}, check: func(t *testing.T, o *indexOptions) {
			assert.Equal(t, "site", o.Out)
		}},
		{name: "unknown format", args: []string{"index", "--format", "yaml"}, wantErr: `--format must be one of xml, catalog, markdown, json, tools, wellknown, not "yaml"`},
		{name: "style without markdown", args: []string{"index", "--style", "tool"}, wantErr: "--style goes with --format markdown"},
		{name: "unknown style", args: []string{"index", "--format", "markdown", "--style", "loud"}, wantErr: `--style must be one of awareness, direct, tool, not "loud"`},
		{name: "--json with another format", args: []string{"index", "--json", "--format", "xml"}, wantErr: "--json prints the json format"},
		{name: "wellknown without --out", args: []string{"index", "--format", "wellknown"}, wantErr: "needs --out DIR"},
		{name: "wellknown with --write", args: []string{"index", "--format", "wellknown", "--out", "d", "--write", "f"}, wantErr: "--write cannot be used with --format wellknown"},
		{name: "--out without wellknown", args: []string{"index", "--out", "d"}, wantErr: "--out goes with --format wellknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := NewFactory(ios, func(string) string { return "" })
			got, err := parseCommand(f, "index", newIndexCmd, tt.args...)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				var fe *FlagError
				assert.True(t, errors.As(err, &fe), "a flag mistake is a usage error")
				assert.Equal(t, ExitUsage, ExitCodeOf(err))
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got)
			tt.check(t, got)
		})
	}
}

func testItems() []index.Item {
	mk := func(name, desc string, dmi bool) index.Item {
		return index.Item{Skill: &skill.Skill{Name: name, ID: "user:" + name, Source: "user", Description: desc,
			Dir: "/s/" + name, File: "/s/" + name + "/SKILL.md", DisableModelInvocation: dmi}, RealDir: "/s/" + name}
	}
	return []index.Item{mk("zeta", "Z & z.", false), mk("manual", "Manual.", true), mk("alpha", "A.", false), mk("off", "Off.", false)}
}

func runIndex(t *testing.T, o *indexOptions) (stdout, stderr string, err error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	o.IO = ios
	o.Gather = func(context.Context, []string, bool) ([]index.Item, func(string, string) bool, error) {
		return testItems(), func(name, id string) bool { return name == "off" }, nil
	}
	if o.Cwd == nil {
		o.Cwd = os.Getwd
	}
	err = indexRun(context.Background(), o)
	return out.String(), errOut.String(), err
}

func TestIndexRunPrintsXMLAndSaysWhatIsLeftOut(t *testing.T) {
	stdout, stderr, err := runIndex(t, &indexOptions{Format: index.FormatXML})
	require.NoError(t, err)
	assert.Equal(t, "<available_skills>\n"+
		"<skill>\n<name>\nalpha\n</name>\n<description>\nA.\n</description>\n<location>\n"+filepath.Join("/s/alpha", "SKILL.md")+"\n</location>\n</skill>\n"+
		"<skill>\n<name>\nzeta\n</name>\n<description>\nZ &amp; z.\n</description>\n<location>\n"+filepath.Join("/s/zeta", "SKILL.md")+"\n</location>\n</skill>\n"+
		"</available_skills>\n", stdout)
	assert.Equal(t, "left out manual (user:manual): disable-model-invocation: true\nleft out off (user:off): disabled in config\n", stderr)

	_, stderr, err = runIndex(t, &indexOptions{Format: index.FormatXML, Quiet: true})
	require.NoError(t, err)
	assert.Empty(t, stderr)
}

func TestIndexRunWrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "AGENTS.md")
	require.NoError(t, os.WriteFile(file, []byte("# Agents\n"), 0o644))
	o := &indexOptions{Format: index.FormatMarkdown, Style: index.StyleTool, Write: "AGENTS.md", Quiet: false,
		Cwd: func() (string, error) { return dir, nil }}
	stdout, stderr, err := runIndex(t, o)
	require.NoError(t, err)
	assert.Empty(t, stdout, "with --write nothing goes to stdout")
	assert.Contains(t, stderr, "Wrote 2 skills to AGENTS.md\n")
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(got), "# Agents\n\n<!-- skillctl:begin -->\n## Available Skills\n")
	assert.Contains(t, string(got), "- `alpha`: A.\n- `zeta`: Z & z.\n<!-- skillctl:end -->\n")

	_, stderr, err = runIndex(t, o)
	require.NoError(t, err)
	assert.Contains(t, stderr, "AGENTS.md is up to date (2 skills)\n")
	again, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(got), string(again))
}

func TestIndexRunGatherError(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	o := &indexOptions{IO: ios, Format: index.FormatXML,
		Gather: func(context.Context, []string, bool) ([]index.Item, func(string, string) bool, error) {
			return nil, nil, &skill.NotFoundError{What: "path", Name: "nope"}
		}}
	err := indexRun(context.Background(), o)
	require.Error(t, err)
	assert.Equal(t, ExitNotFound, ExitCodeOf(err))
}
