package scaffold

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/validate"
)

func loadNew(t *testing.T, opts Options) (*Result, *skill.Skill) {
	t.Helper()
	if opts.Parent == "" {
		opts.Parent = t.TempDir()
	}
	res, err := Create(opts)
	require.NoError(t, err)
	s, err := skill.Load(res.Path, skill.LoadOptions{})
	require.NoError(t, err)
	return res, s
}

func TestCreateSandboxSkill(t *testing.T) {
	parent := t.TempDir()
	res, s := loadNew(t, Options{Name: "hello-world", Parent: parent, License: "MIT"})
	assert.Equal(t, filepath.Join(parent, "hello-world"), res.Path)
	assert.Equal(t, []string{"SKILL.md", "scripts/run.sh"}, res.Files)
	assert.Equal(t, skill.ModeSandbox, res.Mode)

	assert.Equal(t, "hello-world", s.Name)
	assert.Equal(t, DefaultDescription("hello-world"), s.Description)
	assert.Equal(t, "MIT", s.License)
	assert.Equal(t, skill.ModeSandbox, s.Exec.Mode)
	assert.Equal(t, Entrypoint, s.Exec.Entrypoint)
	assert.Equal(t, InitialVersion, s.Exec.Version)
	assert.Equal(t, map[string]string{"mode": "sandbox", "entrypoint": "scripts/run.sh", "version": "0.1.0"}, s.Metadata)
	assert.Empty(t, s.Diagnostics)
	assert.False(t, s.DisableModelInvocation)
	assert.Contains(t, s.Body, "skillctl run hello-world")
	assertSpecClean(t, s)

	fi, err := os.Stat(filepath.Join(res.Path, "scripts", "run.sh"))
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "run.sh is executable")
		dir, err := os.Stat(res.Path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o755), dir.Mode().Perm())
	}
	assertNoStaging(t, parent)
}

func TestRunScriptEchoesItsInput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("scripts/run.sh needs a POSIX shell")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	res, _ := loadNew(t, Options{Name: "echo"})
	cmd := exec.Command(filepath.Join(res.Path, "scripts", "run.sh"))
	cmd.Stdin = strings.NewReader(`{"name":"world"}`)
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, "{\"name\":\"world\"}\n", string(out))
}

func TestCreateDirectSkillWithResources(t *testing.T) {
	desc := `Takes notes: the user's "exact" words & symbols, verbatim.`
	res, s := loadNew(t, Options{Name: "notes", Mode: skill.ModeDirect, Description: "  " + desc + "\n",
		Resources: []string{"references", "assets/", "scripts", "references", ""}})
	assert.Equal(t, []string{"SKILL.md", "assets/README.md", "references/README.md", "scripts/README.md"}, res.Files)
	assert.Equal(t, desc, s.Description, "special characters survive the YAML round trip")
	assert.Equal(t, skill.ModeDirect, s.Exec.Mode)
	assert.Empty(t, s.Exec.Entrypoint)
	assert.Equal(t, strings.Count(s.Body, "{{"), strings.Count(s.Body, `\{{`),
		"a direct skill runs without input: every placeholder in the body is escaped")
	assert.Contains(t, s.Body, `\{{input.topic}}`)
	for _, r := range []string{"assets", "references", "scripts"} {
		data, err := os.ReadFile(filepath.Join(res.Path, r, "README.md"))
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(data), "# "+r+"\n\n"), r)
		assert.Contains(t, s.Body, "`"+r+"/`", "the body mentions %s", r)
	}
	_, err := os.Stat(filepath.Join(res.Path, "scripts", "run.sh"))
	assert.True(t, os.IsNotExist(err), "a direct skill has no entry point")
	assertSpecClean(t, s)
}

func TestMultiLineDescription(t *testing.T) {
	_, s := loadNew(t, Options{Name: "multi", Description: "Line one.\nLine two: with a colon."})
	assert.Equal(t, "Line one.\nLine two: with a colon.", s.Description)
	assertSpecClean(t, s)
}

// assertSpecClean checks what the spec profile demands of the frontmatter:
// only the six standard keys at the top, metadata a map of strings, the name
// equal to the folder name, and no findings from validation but the one
// that says a placeholder description is yet to be written.
func assertSpecClean(t *testing.T, s *skill.Skill) {
	t.Helper()
	require.NotNil(t, s.Doc)
	for i := 0; i+1 < len(s.Doc.Root.Content); i += 2 {
		assert.Contains(t, skill.StandardFields, s.Doc.Root.Content[i].Value, "top-level key")
	}
	meta := s.Doc.Field("metadata")
	require.NotNil(t, meta)
	require.Equal(t, yaml.MappingNode, meta.Kind)
	for i := 1; i < len(meta.Content); i += 2 {
		v := meta.Content[i]
		assert.Equal(t, yaml.ScalarNode, v.Kind)
		assert.Equal(t, "!!str", v.ShortTag(), "metadata %s must be a string", meta.Content[i-1].Value)
	}
	assert.Equal(t, filepath.Base(s.Dir), s.Name)
	for _, p := range []string{validate.ProfileSpec, validate.ProfileDefault, validate.ProfileClaudeCode, validate.ProfileAnthropicAPI} {
		res := validate.Dir(s.Dir, validate.Options{Profile: p})
		if s.Description == DefaultDescription(s.Name) && p != validate.ProfileSpec {
			require.Len(t, res.Findings, 1, "profile %s", p)
			assert.Equal(t, "description-placeholder", res.Findings[0].Rule, "profile %s", p)
			assert.Equal(t, validate.Warning, res.Findings[0].Severity)
			continue
		}
		assert.Empty(t, res.Findings, "profile %s", p)
	}
}

func TestCreateRefusesNonEmptyFolder(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "taken")
	require.NoError(t, os.MkdirAll(target, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(target, "notes.txt"), []byte("mine"), 0o600))

	_, err := Create(Options{Name: "taken", Parent: parent})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrExists), "%v", err)
	assert.Contains(t, err.Error(), target+" already exists and is not empty")
	ents, err := os.ReadDir(target)
	require.NoError(t, err)
	require.Len(t, ents, 1, "the folder is left as it was")
	data, err := os.ReadFile(filepath.Join(target, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "mine", string(data))
	assertNoStaging(t, parent)

	require.NoError(t, os.WriteFile(filepath.Join(parent, "file"), []byte("x"), 0o644))
	_, err = Create(Options{Name: "file", Parent: parent})
	assert.ErrorContains(t, err, "is not a folder")
	assert.True(t, errors.Is(err, ErrExists))
}

func TestCreateUsesEmptyFolderAndMissingParent(t *testing.T) {
	parent := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(parent, "empty"), 0o755))
	res, err := Create(Options{Name: "empty", Parent: parent})
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(res.Path, "SKILL.md"))
	assert.NoError(t, err)

	deep := filepath.Join(parent, "a", "b")
	res, err = Create(Options{Name: "deep", Parent: deep})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(deep, "deep"), res.Path)
	assertNoStaging(t, parent)
}

func TestCreateRefusesBadOptions(t *testing.T) {
	parent := t.TempDir()
	tests := []struct {
		opts Options
		msg  string
	}{
		{Options{Name: "Bad"}, "must be lowercase"},
		{Options{Name: "ok", Mode: "fast"}, `mode must be sandbox or direct, not "fast"`},
		{Options{Name: "ok", Description: strings.Repeat("é", 1025)}, "1025 characters long; the limit is 1024"},
		{Options{Name: "ok", Resources: []string{"docs"}}, `unknown resource folder "docs"`},
	}
	for _, tt := range tests {
		tt.opts.Parent = parent
		_, err := Create(tt.opts)
		assert.ErrorContains(t, err, tt.msg)
	}
	ents, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing is written for bad options")
}

func TestFilesIsWhatCreateWrites(t *testing.T) {
	opts := Options{Name: "same", Resources: []string{"assets"}, Parent: t.TempDir()}
	want, err := Files(opts)
	require.NoError(t, err)
	res, err := Create(opts)
	require.NoError(t, err)
	require.Len(t, res.Files, len(want))
	for _, rel := range res.Files {
		data, err := os.ReadFile(filepath.Join(res.Path, filepath.FromSlash(rel)))
		require.NoError(t, err)
		assert.Equal(t, string(want[rel].Content), string(data), rel)
	}
}

func assertNoStaging(t *testing.T, parent string) {
	t.Helper()
	ents, err := os.ReadDir(parent)
	require.NoError(t, err)
	for _, e := range ents {
		assert.NotContains(t, e.Name(), ".init-", "staging folder left behind")
	}
}
