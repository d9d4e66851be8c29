package cmd

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/install"
	"github.com/skillctl/skillctl/pkg/skill"
)

// corpusRoot is ../shared/corpus from the repository top, or $SKILLCTL_CORPUS.
func corpusRoot(t *testing.T) string {
	dir := os.Getenv("SKILLCTL_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		t.Skipf("no corpus of real skills at %s (set SKILLCTL_CORPUS)", dir)
	}
	return abs
}

// unzipTo extracts the zip file into dir (regular files and folders only;
// the corpus holds nothing else that matters here).
func unzipTo(t *testing.T, file, dir string) {
	t.Helper()
	r, err := zip.OpenReader(file)
	require.NoError(t, err)
	defer r.Close()
	for _, f := range r.File {
		name := filepath.FromSlash(f.Name)
		if !filepath.IsLocal(name) {
			continue
		}
		dest := filepath.Join(dir, name)
		if f.FileInfo().IsDir() {
			require.NoError(t, os.MkdirAll(dest, 0o755))
			continue
		}
		if !f.Mode().IsRegular() {
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(dest), 0o755))
		rc, err := f.Open()
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		rc.Close()
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dest, data, f.Mode().Perm()|0o600))
	}
}

// TestCorpusLifecycle takes the real skills of ../shared/corpus through
// what a user does with them: each repository (its zips unpacked into one
// tree, as a checkout would be) installs as a bundle with no skill refused
// for lint reasons; every skill is listed, shown, runs in direct mode and
// in auto mode's choice, and uninstalls. An unsafe skill added to a bundle
// still stops it.
func TestCorpusLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("installs every skill of the corpus")
	}
	corpus := corpusRoot(t)
	e := newTestEnv(t)
	require.NoError(t, os.RemoveAll(filepath.Join(e.home, ".claude")))
	repos, err := os.ReadDir(corpus)
	require.NoError(t, err)
	var trees []string
	for _, r := range repos {
		zips, _ := filepath.Glob(filepath.Join(corpus, r.Name(), "*.zip"))
		if !r.IsDir() || len(zips) == 0 {
			continue
		}
		tree := filepath.Join(t.TempDir(), r.Name())
		for _, z := range zips {
			unzipTo(t, z, filepath.Join(tree, strings.TrimSuffix(filepath.Base(z), ".zip")))
		}
		trees = append(trees, tree)
	}
	require.NotEmpty(t, trees)

	// An unsafe skill in a bundle stops it, named; --skip-invalid installs the rest.
	evil := filepath.Join(trees[0], "zz-evil", "evil")
	require.NoError(t, os.MkdirAll(evil, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(evil, "SKILL.md"), []byte("---\nname: evil\ndescription: Reads outside.\n---\n"), 0o644))
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(evil, "peek")))
	code, _, errOut := e.run(t, false, "install", trees[0])
	require.Equal(t, ExitFailure, code, errOut)
	assert.Contains(t, errOut, "evil")
	assert.Contains(t, errOut, "symlink")
	assert.Contains(t, errOut, "nothing was installed")
	assert.NoDirExists(t, filepath.Join(e.home, ".claude", "skills"), "nothing of the bundle was installed")
	code, _, errOut = e.run(t, false, "install", trees[0], "--skip-invalid", "--dry-run")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "warning: skipped evil in "+strings.ReplaceAll(trees[0], e.home, "$HOME")+": ")
	require.NoError(t, os.RemoveAll(filepath.Join(trees[0], "zz-evil")))

	installed := map[string]string{} // folder → name
	gated := regexp.MustCompile(`audit: \w+ ([a-z-]+) at `)
	for _, tree := range trees {
		code, out, errOut := e.run(t, false, "install", tree, "--json")
		if code == ExitFailure && gated.MatchString(errOut) {
			// The audit gate stops a few honest skills (docs/audit.md);
			// --allow-risk with the rules it names installs them.
			args := []string{"install", tree, "--json"}
			for _, m := range gated.FindAllStringSubmatch(errOut, -1) {
				args = append(args, "--allow-risk", m[1])
			}
			code, out, errOut = e.run(t, false, args...)
		}
		require.Equal(t, 0, code, "%s: %s", tree, errOut)
		var res install.Result
		require.NoError(t, json.Unmarshal([]byte(out), &res))
		assert.Empty(t, res.Refused, tree)
		for _, s := range res.Skills {
			assert.Equal(t, install.StatusInstalled, s.Status)
			installed[s.Folder] = s.Name
		}
	}
	t.Logf("%d skills of %d repositories installed", len(installed), len(trees))

	code, out, errOut := e.run(t, false, "list", "--json", "--agent", "claude")
	require.Equal(t, 0, code, errOut)
	var listed []skill.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &listed))
	assert.Len(t, listed, len(installed), "every installed skill is listed")
	modes := map[string]int{}
	for _, s := range listed {
		modes[s.Mode]++
		require.NotNil(t, s.Installed, "%s says where it came from", s.Name)
	}
	t.Logf("modes run would use: %v", modes)

	folders := make([]string, 0, len(installed))
	for f := range installed {
		folders = append(folders, f)
	}
	sort.Strings(folders)
	for _, f := range folders {
		p := filepath.Join(e.home, ".claude", "skills", f)
		code, _, errOut := e.run(t, false, "show", p, "--json")
		assert.Equal(t, 0, code, "show %s: %s", f, errOut)
		code, out, errOut := e.run(t, false, "run", p, "--mode", "direct", "--allow-missing", "--json")
		if assert.Equal(t, 0, code, "run %s: %s", f, errOut) {
			assert.Contains(t, out, `"mode": "direct"`)
		}
	}
	// By name, as people type it, for a few.
	for _, f := range folders[:min(5, len(folders))] {
		code, _, errOut := e.run(t, false, "show", f)
		assert.Equal(t, 0, code, "show %s: %s", f, errOut)
	}

	code, _, errOut = e.run(t, false, append([]string{"uninstall"}, folders...)...)
	require.Equal(t, 0, code, errOut)
	code, out, _ = e.run(t, false, "list", "--json")
	require.Equal(t, 0, code)
	assert.Equal(t, "[]\n", out, "every skill was uninstalled")
}

// TestCorpusLint runs validate as a CI lint step over the real skills of
// ../shared/corpus, unpacked into one repository with the documented
// docs/examples/skillctl.yaml at its top: a readable report that ends with
// the count per rule and the summary, and GitHub annotations that name
// files from the repository top when validate runs in a sub folder.
func TestCorpusLint(t *testing.T) {
	corpus := corpusRoot(t)
	e := newTestEnv(t)
	repo := filepath.Join(t.TempDir(), "skills-repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	repos, err := os.ReadDir(corpus)
	require.NoError(t, err)
	var dirs []string
	for _, r := range repos {
		zips, _ := filepath.Glob(filepath.Join(corpus, r.Name(), "*.zip"))
		if !r.IsDir() || len(zips) == 0 {
			continue
		}
		dirs = append(dirs, r.Name())
		for _, z := range zips {
			unzipTo(t, z, filepath.Join(repo, r.Name()))
		}
	}
	require.NotEmpty(t, dirs)
	cfg, err := os.ReadFile(filepath.Join("..", "docs", "examples", "skillctl.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".skillctl.yaml"), cfg, 0o644))

	_, out, errOut := e.run(t, false, "-C", repo, "validate", ".")
	assert.Empty(t, errOut)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	assert.Regexp(t, `^\d+ skill\(s\) validated, \d+ failed$`, lines[len(lines)-1])
	at := strings.Index(out, "\nFindings by rule:\n")
	require.Positive(t, at, "the report ends with the count per rule")
	counts := strings.Split(strings.TrimSpace(out[at+len("\nFindings by rule:\n"):]), "\n")
	counts = counts[:len(counts)-1]
	require.NotEmpty(t, counts)
	seen := map[string]bool{}
	for _, c := range counts {
		f := strings.Fields(c)
		require.Len(t, f, 3, "count line %q", c)
		seen[f[2]] = true
		if f[2] == "body-too-long" || f[2] == "unknown-field" {
			assert.Equal(t, "info", f[1], "the config sets %s to info", f[2])
		}
	}
	assert.True(t, seen["body-too-long"], "the corpus has long bodies")
	for _, l := range lines[:len(lines)-len(counts)-3] {
		assert.Regexp(t, `^[^/\s]+/\S+(:\d+:\d+)?: (error|warning|info) [a-z0-9-]+ `, l)
	}
	_, quiet, _ := e.run(t, false, "-C", repo, "-q", "validate", ".")
	assert.Less(t, strings.Count(quiet, "\n"), strings.Count(out, "\n"), "-q hides the infos the config asked for")

	sub := filepath.Join(repo, dirs[0])
	_, gh, _ := e.run(t, false, "-C", sub, "validate", "--format", "github", ".")
	n := 0
	for _, l := range strings.Split(gh, "\n") {
		if strings.HasPrefix(l, "::") {
			n++
			assert.Contains(t, l, " file="+dirs[0]+"/", "annotations name files from the repository top: %s", l)
		}
	}
	assert.Positive(t, n)
}
