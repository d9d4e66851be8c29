package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/skill"
)

// fixtureItems collects the fixture skills under testdata/skills and selects
// them as index does.
func fixtureItems(t *testing.T) ([]Item, []Excluded, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", "skills"))
	require.NoError(t, err)
	root, err = filepath.EvalSymlinks(root)
	require.NoError(t, err)
	got, err := Collect(context.Background(), []string{root}, "", false)
	require.NoError(t, err)
	require.Empty(t, got.Problems)
	items, left := Select(got.Items, nil)
	return items, left, root
}

func TestXMLMatchesGolden(t *testing.T) {
	items, left, root := fixtureItems(t)
	want, err := os.ReadFile(filepath.Join("testdata", "xml.golden"))
	require.NoError(t, err)
	// The golden file is written with / and LF; {{ROOT}} is the fixture folder.
	expected := strings.ReplaceAll(string(want), "{{ROOT}}/", root+string(filepath.Separator))
	if runtime.GOOS == "windows" {
		expected = strings.ReplaceAll(expected, "/SKILL.md", `\SKILL.md`)
	}
	assert.Equal(t, expected, string(XML(items)))
	assert.Equal(t, []Excluded{{Name: "hidden-from-model", ID: "path:hidden-from-model", Reason: ReasonNoModelCalls}}, left)
}

func TestXMLEmpty(t *testing.T) {
	// skills-ref prints "<available_skills>\n</available_skills>" and echo adds the newline.
	assert.Equal(t, "<available_skills>\n</available_skills>\n", string(XML(nil)))
}

func TestXMLResolvesSymlinks(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	real := filepath.Join(tmp, "store", "linked")
	writeSkill(t, real, "linked", "Reached through a link.")
	roots := filepath.Join(tmp, "skills")
	require.NoError(t, os.MkdirAll(roots, 0o755))
	if err := os.Symlink(real, filepath.Join(roots, "linked")); err != nil {
		t.Skipf("symbolic links are not available here: %v", err)
	}
	// A skill named through a link is found at its real place.
	got, err := Collect(context.Background(), []string{filepath.Join(roots, "linked")}, "", true)
	require.NoError(t, err)
	require.Len(t, got.Items, 1)
	out := string(XML(got.Items))
	assert.Contains(t, out, "<location>\n"+filepath.Join(real, "SKILL.md")+"\n</location>")

	// In a tree, a link to a folder outside it is reported, not followed.
	tree, err := Collect(context.Background(), []string{roots}, "", true)
	require.NoError(t, err)
	assert.Empty(t, tree.Items)
	require.Len(t, tree.Problems, 1)
	assert.Contains(t, tree.Problems[0].Reason, "outside the tree; not followed")

	// An item without RealDir is resolved on demand.
	it := Item{Skill: got.Items[0].Skill}
	assert.Equal(t, filepath.Join(real, "SKILL.md"), it.Location())
}

func TestEscapeHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{`a & b`, "a &amp; b"},
		{`<tag attr="v">`, "&lt;tag attr=&quot;v&quot;&gt;"},
		{"it's", "it&#x27;s"},
		{"&amp;", "&amp;amp;"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, escapeHTML(tt.in), tt.in)
	}
}

func TestPyStrip(t *testing.T) {
	assert.Equal(t, "x y", pyStrip("\t\n x y \u00a0\u3000\x1c\x1f"))
	assert.Equal(t, "", pyStrip(" \n "))
}

func TestSelect(t *testing.T) {
	mk := func(name, id string, dmi bool) Item {
		return Item{Skill: &skill.Skill{Name: name, ID: id, DisableModelInvocation: dmi}}
	}
	items := []Item{
		mk("zeta", "user:zeta", false),
		mk("alpha", "project:alpha", false),
		mk("secret", "user:secret", false),
		mk("manual", "user:manual", true),
		mk("alpha", "plug:alpha", false),
	}
	disabled := func(name, id string) bool { return name == "secret" }
	kept, left := Select(items, disabled)
	var ids []string
	for _, it := range kept {
		ids = append(ids, it.Skill.ID)
	}
	assert.Equal(t, []string{"plug:alpha", "project:alpha", "user:zeta"}, ids)
	assert.Equal(t, []Excluded{
		{Name: "manual", ID: "user:manual", Reason: ReasonNoModelCalls},
		{Name: "secret", ID: "user:secret", Reason: ReasonDisabled},
	}, left)
}

func TestFilesLine(t *testing.T) {
	files := []skill.File{
		{Path: "REFERENCE.md"}, {Path: "SKILL.md"}, {Path: "assets/a.tmpl"},
		{Path: "scripts/a.sh"}, {Path: "scripts/b.py"}, {Path: "scripts/lib/c.py"}, {Path: "LICENSE"},
	}
	assert.Equal(t, "SKILL.md, LICENSE, REFERENCE.md, assets/ (1 file), scripts/ (3 files)", FilesLine(files))
	assert.Equal(t, "", FilesLine(nil))
}

func TestCatalog(t *testing.T) {
	items, _, root := fixtureItems(t)
	b, err := Catalog(items)
	require.NoError(t, err)
	out := string(b)
	assert.True(t, strings.HasPrefix(out, "<available_skills>\n<skill name=\"alpha-by-name\" path=\""+filepath.Join(root, "z-folder")+"\">\n"), out)
	assert.Contains(t, out, "<skill name=\"escapes\"")
	assert.Contains(t, out, "\nTom &amp; Jerry&#x27;s &lt;b&gt;")
	// A multi-line description becomes one line.
	assert.Contains(t, out, "\nFirst line of the description. Second line, kept on its own line.\nFiles: SKILL.md\n</skill>\n")
	assert.True(t, strings.HasSuffix(out, "</available_skills>\n\n"+CatalogInstructions), out)
	assert.NotContains(t, out, "hidden-from-model")
}

func TestMarkdownStyles(t *testing.T) {
	items, _, root := fixtureItems(t)

	aw, err := Markdown(items, StyleAwareness)
	require.NoError(t, err)
	assert.Contains(t, string(aw), "## Available Skills\n\n")
	assert.Contains(t, string(aw), "- **escapes** (path): Tom & Jerry's <b>\"tricks\"</b> -> done & dusted\n"+
		"  - Path: `"+filepath.Join(root, "escapes", "SKILL.md")+"`\n  - Files: SKILL.md\n")

	tool, err := Markdown(items, StyleTool)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(tool)), "\n")
	assert.Equal(t, "- `alpha-by-name`: Sorted by its name, not by its folder.", lines[4])
	assert.Equal(t, "- `unicode-notes`: Résumé helper — café ☕, naïve ünïcödé & 日本語 stay as they are.", lines[len(lines)-1])
	assert.Contains(t, string(tool), "`skill` tool")

	direct, err := Markdown(items, StyleDirect)
	require.NoError(t, err)
	assert.Contains(t, string(direct), "\n### escapes\n\nTom & Jerry's <b>\"tricks\"</b> -> done & dusted\n\n# Escapes\n\nShows that names and descriptions are HTML-escaped.\n")

	_, err = Markdown(items, "fancy")
	assert.ErrorContains(t, err, `unknown Markdown style "fancy"`)

	empty, err := Markdown(nil, StyleTool)
	require.NoError(t, err)
	assert.Equal(t, "## Available Skills\n\nNo skills are available.\n", string(empty))
}

func TestMarkdownDirectCutsBodies(t *testing.T) {
	long := strings.Repeat("é", 999) + "xyz"
	items := []Item{{Skill: &skill.Skill{Name: "long", Description: "Long.", Body: "\n" + long + "\n"}}}
	b, err := Markdown(items, StyleDirect)
	require.NoError(t, err)
	want := strings.Repeat("é", 999) + "x..."
	assert.Contains(t, string(b), "\n\n"+want+"\n")
	assert.NotContains(t, string(b), "xyz")

	assert.Equal(t, "short", CutBody("  short\n", 1000))
	exact := strings.Repeat("a", 1000)
	assert.Equal(t, exact, CutBody(exact, 1000))
}

func TestJSON(t *testing.T) {
	items, _, root := fixtureItems(t)
	b, err := JSON(items)
	require.NoError(t, err)
	var got []map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	require.Len(t, got, 5)
	first := got[0]
	assert.Equal(t, "alpha-by-name", first["name"])
	assert.Equal(t, "path:alpha-by-name", first["id"])
	assert.Equal(t, "path", first["source"])
	assert.Equal(t, filepath.Join(root, "z-folder", "SKILL.md"), first["location"])
	assert.Greater(t, first["tokens"], 0.0)
	assert.Equal(t, `Tom & Jerry's <b>"tricks"</b> -> done & dusted`, got[1]["description"], "JSON is not HTML-escaped")

	b, err = JSON(nil)
	require.NoError(t, err)
	assert.Equal(t, "[]\n", string(b))
}

func TestRenderRejectsUnknownFormat(t *testing.T) {
	var sb strings.Builder
	err := Render(&sb, nil, Options{Format: "yaml"})
	assert.ErrorContains(t, err, `unknown format "yaml"`)
	require.NoError(t, Render(&sb, nil, Options{}))
	assert.Equal(t, "<available_skills>\n</available_skills>\n", sb.String())
}

func writeSkill(t *testing.T, dir, name, desc string) {
	t.Helper()
	writeSkillB(t, dir, name, desc)
}

func writeSkillB(t testing.TB, dir, name, desc string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"),
		[]byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n\nBody of "+name+".\n"), 0o644))
}
