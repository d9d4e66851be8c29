package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack 15: escape sequences in a skill's name, description, body and file
// names, and in a skipped folder's name, reached the terminal raw through
// list, show, index, validate and warnings. Every command prints them made
// visible; JSON escapes them as JSON does.
func TestAttackEscapeSequencesAreMadeVisible(t *testing.T) {
	e := newTestEnv(t)
	const esc = "\x1b]0;owned\x07\x1b[2J"
	e.skill(t, ".claude/skills/evil", "---\nname: evil\ndescription: \"Looks fine.\\e[8m hidden \\u202e\\x9b31m\"\n---\n# Body\n\x1b[2Jcleared\n")
	dir := filepath.Join(e.home, ".claude/skills/evil")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x"+esc+".md"), []byte("ref"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(e.home, ".claude/skills/bad"+esc), 0o755))

	for _, args := range [][]string{
		{"list", "--color", "never"},
		{"list", "--all", "--color", "never"},
		{"show", "evil", "--color", "never"},
		{"show", "evil", "--file", "SKILL.md"},
		{"index", "--format", "catalog"},
		{"index"},
		{"validate", "--color", "never", filepath.Join(e.home, ".claude/skills")},
		{"run", "evil", "--mode", "direct"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, out, errOut := e.run(t, true, args...)
			for _, s := range []string{out, errOut} {
				assert.NotContains(t, s, "\x1b", "a raw escape reached the terminal")
				assert.NotContains(t, s, "\x07")
				assert.NotContains(t, s, "\u202e")
				assert.NotContains(t, s, "\u009b")
			}
		})
	}
	_, out, _ := e.run(t, true, "list", "--color", "never")
	assert.Contains(t, out, `\x1b[8m`, "made visible, not dropped")
	_, _, errOut := e.run(t, true, "list")
	assert.Contains(t, errOut, `bad\x1b]0;owned\x07\x1b[2J`)
	_, out, _ = e.run(t, false, "list", "--json")
	assert.Contains(t, out, `\u001b[8m`, "JSON escapes control characters itself")
}
