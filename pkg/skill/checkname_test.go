package skill

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name    string
		reasons []string // substrings, in order; none means valid
	}{
		{"pdf", nil},
		{"csv-report-2", nil},
		{"技能", nil},
		{"мой-навык", nil},
		{strings.Repeat("a", 64), nil},
		{"", []string{"needs a name"}},
		{"  ", []string{"needs a name"}},
		{strings.Repeat("a", 65), []string{"65 characters long; the limit is 64"}},
		{"MySkill", []string{"must be lowercase; use myskill"}},
		{"НАВЫК", []string{"must be lowercase"}},
		{"-lead", []string{"cannot start or end with a hyphen"}},
		{"trail-", []string{"cannot start or end with a hyphen"}},
		{"my--skill", []string{"two hyphens in a row"}},
		{"my_skill", []string{"not '_'"}},
		{"a b.c", []string{"not ' ', '.'"}},
		{"x²", []string{`NFKC form; write it as "x2"`}},
		{"skills/pdf", []string{"it is a path, not a name"}},
		{"Bad_Name--", []string{"lowercase", "hyphen at either end", "two hyphens", "'_'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckName(tt.name)
			if tt.reasons == nil {
				assert.NoError(t, err)
				return
			}
			var ne *NameError
			require.True(t, errors.As(err, &ne), "%v", err)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "invalid skill name "), msg)
			for _, r := range tt.reasons {
				if r == "hyphen at either end" {
					r = "cannot start or end with a hyphen"
				}
				assert.Contains(t, msg, r)
			}
		})
	}
}

// loadNew creates a skill and loads it back with pkg/skill.

func TestValidName(t *testing.T) {
	for in, want := range map[string]string{
		"pdf-tools": "pdf-tools", "Toggl Automation": "toggl-automation", "my_skill": "my-skill",
		"-2chat--x-": "2chat-x", "日本": "日本", "!!!": "", strings.Repeat("ab_", 30): strings.TrimRight(strings.Repeat("ab-", 22)[:64], "-"),
	} {
		got := ValidName(in)
		assert.Equal(t, want, got, in)
		if got != "" {
			assert.NoError(t, CheckName(got), in)
		}
	}
}
