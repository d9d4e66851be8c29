package validate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sampleReport validates a few fixtures with every severity in them.
func sampleReport(t *testing.T, profile string) *Report {
	t.Helper()
	return run(t, profile,
		"testdata/01-valid/my-skill",
		"testdata/18-flow-list/my-skill",
		"testdata/53-many-findings/other-folder",
		"testdata/11-no-skill-md/my-skill")
}

func TestJSONReport(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, sampleReport(t, ProfileDefault).WriteJSON(&buf, false))
	var got struct {
		Profile string
		Strict  bool
		Valid   bool
		Summary map[string]int
		Skills  []struct {
			Path, File, Name        string
			Valid                   bool
			Errors, Warnings, Infos int
			Findings                []map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	assert.Equal(t, "default", got.Profile)
	assert.False(t, got.Valid)
	assert.Equal(t, map[string]int{"skills": 4, "failed": 2, "errors": 6, "warnings": 2, "infos": 1}, got.Summary)
	require.Len(t, got.Skills, 4)
	assert.Equal(t, "testdata/01-valid/my-skill", filepath.ToSlash(got.Skills[0].Path))
	assert.True(t, got.Skills[0].Valid)
	assert.NotNil(t, got.Skills[0].Findings, "findings is [] rather than null")
	assert.Equal(t, "my-skill", got.Skills[1].Name)
	assert.True(t, got.Skills[1].Valid)
	assert.Equal(t, 1, got.Skills[1].Warnings)
	assert.Equal(t, 1, got.Skills[1].Infos)
	f := got.Skills[1].Findings[0]
	for _, k := range []string{"rule", "severity", "message", "file", "line", "column", "hint"} {
		assert.Contains(t, f, k)
	}

	// --strict: warnings fail.
	buf.Reset()
	require.NoError(t, sampleReport(t, ProfileDefault).WriteJSON(&buf, true))
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	assert.True(t, got.Strict)
	assert.False(t, got.Skills[1].Valid)
	assert.Equal(t, 3, got.Summary["failed"])
}

func TestSARIFReport(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, sampleReport(t, ProfileSpec).WriteSARIF(&buf, "1.2.3"))
	var log struct {
		Schema  string `json:"$schema"`
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name, Version string
					Rules         []struct {
						ID                   string
						ShortDescription     struct{ Text string }
						Help                 struct{ Text string }
						HelpURI              string
						DefaultConfiguration struct{ Level string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &log))
	assert.Equal(t, "2.1.0", log.Version)
	assert.Contains(t, log.Schema, "sarif-2.1.0")
	require.Len(t, log.Runs, 1)
	d := log.Runs[0].Tool.Driver
	assert.Equal(t, "skillctl", d.Name)
	assert.Equal(t, "1.2.3", d.Version)
	require.Len(t, d.Rules, len(Rules))
	for i, r := range d.Rules {
		assert.Equal(t, Rules[i].ID, r.ID)
		assert.NotEmpty(t, r.ShortDescription.Text)
		assert.Contains(t, r.Help.Text, Rules[i].Hint)
		assert.Contains(t, r.HelpURI, "docs/validate.md#"+r.ID)
	}
	res := log.Runs[0].Results
	require.Len(t, res, 9)
	for _, r := range res {
		assert.Equal(t, r.RuleID, d.Rules[r.RuleIndex].ID)
		assert.Contains(t, []string{"error", "warning", "note"}, r.Level)
		require.Len(t, r.Locations, 1)
		assert.NotContains(t, r.Locations[0].PhysicalLocation.ArtifactLocation.URI, "\\")
	}
	first := res[1] // findings at one place are sorted by rule id
	assert.Equal(t, "yaml-flow-style", first.RuleID)
	assert.Equal(t, "error", first.Level)
	assert.Equal(t, "testdata/18-flow-list/my-skill/SKILL.md", first.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	require.NotNil(t, first.Locations[0].PhysicalLocation.Region)
	assert.Equal(t, 4, first.Locations[0].PhysicalLocation.Region.StartLine)
	last := res[len(res)-1]
	assert.Equal(t, "skill-md-missing", last.RuleID)
	assert.Nil(t, last.Locations[0].PhysicalLocation.Region, "no region without a line")
}

func TestGitHubReport(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, sampleReport(t, ProfileDefault).WriteGitHub(&buf, false))
	golden(t, "github.txt", buf.Bytes())
}

func TestGitHubEscaping(t *testing.T) {
	rep := &Report{Results: []*Result{{Findings: []Finding{{Rule: "r", Severity: Warning, Message: "50% done\nnext",
		File: "a,b:c.md", Line: 3, Column: 2}}}}}
	var buf bytes.Buffer
	require.NoError(t, rep.WriteGitHub(&buf, false))
	assert.Equal(t, "::warning file=a%2Cb%3Ac.md,line=3,col=2,title=r::50%25 done%0Anext\n1 skill(s) validated, 0 failed\n", buf.String())
}

func TestWithoutInfo(t *testing.T) {
	rep := sampleReport(t, ProfileDefault)
	q := rep.WithoutInfo()
	assert.Equal(t, 0, q.Summary(false).Infos)
	assert.Equal(t, 1, rep.Summary(false).Infos, "the original is unchanged")
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, got, 0o644))
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run go test -update to create the golden file")
	assert.Equal(t, string(want), string(got))
}
