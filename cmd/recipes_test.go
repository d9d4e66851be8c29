package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// recipeCommands are the skillctl command lines of the CI recipes a skills
// repository copies: the example GitHub Actions workflow and the pre-commit
// hooks. Shell redirections and "|| true" are cut off.
func recipeCommands(t *testing.T) [][]string {
	t.Helper()
	var lines []string

	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	b, err := os.ReadFile("../docs/examples/validate-skills.yml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &workflow))
	for _, job := range workflow.Jobs {
		for _, s := range job.Steps {
			lines = append(lines, strings.Split(s.Run, "\n")...)
		}
	}

	var hooks []struct {
		ID    string `yaml:"id"`
		Entry string `yaml:"entry"`
	}
	b, err = os.ReadFile("../.pre-commit-hooks.yaml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &hooks))
	require.NotEmpty(t, hooks)
	for _, h := range hooks {
		lines = append(lines, h.Entry)
	}

	var out [][]string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "skillctl ") {
			continue
		}
		if i := strings.IndexAny(l, ">|"); i >= 0 {
			l = l[:i]
		}
		out = append(out, strings.Fields(l)[1:])
	}
	require.GreaterOrEqual(t, len(out), 3, "the workflow's validate steps and the hooks")
	return out
}

// TestCIRecipesWork runs every skillctl command of the CI recipes on a
// repository of good skills (exit 0) and on one with a broken skill (exit 1).
func TestCIRecipesWork(t *testing.T) {
	recipes := recipeCommands(t) // read before the test changes folder
	e := newTestEnv(t)
	repo := filepath.Join(e.home, "repo")
	e.skill(t, "repo/skills/good", "---\nname: good\ndescription: A good skill. Use it when testing.\n---\n# Good\n")
	for _, args := range recipes {
		code, out, errOut := e.run(t, false, append([]string{"-C", repo}, args...)...)
		assert.Equal(t, 0, code, "skillctl %v on good skills: %s", args, errOut)
		if slices.Contains(args, "sarif") {
			var log map[string]any
			assert.NoError(t, json.Unmarshal([]byte(out), &log), "SARIF output is one JSON document")
			assert.Equal(t, "2.1.0", log["version"])
		}
	}

	e.skill(t, "repo/skills/bad", "---\nname: Bad\ndescription: A bad skill.\n---\n")
	for _, args := range recipes {
		code, out, _ := e.run(t, false, append([]string{"-C", repo}, args...)...)
		assert.Equal(t, 1, code, "skillctl %v fails on a broken skill", args)
		if slices.Contains(args, "github") {
			assert.Contains(t, out, "::error file=skills/bad/SKILL.md,line=2,", "annotations point at the file and line")
		}
	}
}
