package findings

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sample = []Finding{
	{Rule: "name-format", Severity: Error, Message: "bad name", File: "a/SKILL.md", Line: 2, Column: 7, Hint: "use a-z"},
	{Rule: "bom", Severity: Warning, Message: "has a BOM", File: "b/SKILL.md"},
	{Rule: "x", Severity: Info, Message: "50% done, a: b", File: "dir with space/c,d.md", Line: 3},
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteText(&b, sample, TextStyle{Hints: true, Prefix: "warning: ",
		Severity: func(s string) string { return "<" + s + ">" }}))
	assert.Equal(t, "warning: a/SKILL.md:2:7: <error> name-format bad name\n    hint: use a-z\n"+
		"warning: b/SKILL.md: <warning> bom has a BOM\n"+
		"warning: dir with space/c,d.md:3: <info> x 50% done, a: b\n", b.String())
}

func TestWriteGitHub(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteGitHub(&b, sample))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "::error file=a/SKILL.md,line=2,col=7,title=name-format::bad name%0Ause a-z", lines[0])
	assert.Equal(t, "::warning file=b/SKILL.md,title=bom::has a BOM", lines[1])
	assert.Equal(t, "::notice file=dir with space/c%2Cd.md,line=3,title=x::50%25 done, a: b", lines[2])
}

func TestWriteSARIF(t *testing.T) {
	var b strings.Builder
	tool := Tool{Name: "skillctl", Version: "1.0", InformationURI: "https://example.invalid",
		Rules: []Rule{{ID: "name-format", Summary: "s", Hint: "h", Severity: Error}, {ID: "bom", Severity: ""}, {ID: "x", Severity: Info}}}
	require.NoError(t, WriteSARIF(&b, tool, sample))
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID                   string `json:"id"`
						DefaultConfiguration struct {
							Level   string `json:"level"`
							Enabled bool   `json:"enabled"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(b.String()), &log))
	assert.Equal(t, "2.1.0", log.Version)
	rules := log.Runs[0].Tool.Driver.Rules
	assert.False(t, rules[1].DefaultConfiguration.Enabled, "a rule that is off is disabled")
	assert.Equal(t, "note", rules[2].DefaultConfiguration.Level)
	res := log.Runs[0].Results
	require.Len(t, res, 3)
	assert.Equal(t, []int{0, 1, 2}, []int{res[0].RuleIndex, res[1].RuleIndex, res[2].RuleIndex})
	assert.Equal(t, []string{"error", "warning", "note"}, []string{res[0].Level, res[1].Level, res[2].Level})
	assert.Equal(t, "dir%20with%20space/c,d.md", res[2].Locations[0].PhysicalLocation.ArtifactLocation.URI)
	assert.Equal(t, "error", SARIFLevel(Critical))
	assert.Equal(t, "warning", SARIFLevel(Medium))
}
