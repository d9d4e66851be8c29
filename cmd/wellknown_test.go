package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInstallFromWellKnown serves skillctl's own 'index --format wellknown'
// site over HTTP on 127.0.0.1 and installs from it: every skill, or one
// with --skill; the lock records the index; a digest that does not match
// refuses the install with nothing changed; restore fetches it again.
func TestInstallFromWellKnown(t *testing.T) {
	e := newTestEnv(t)
	site := filepath.Join(t.TempDir(), "site")
	code, _, errOut := e.run(t, false, "index", "--format", "wellknown", "--out", site)
	require.Equal(t, 0, code, errOut)
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()

	target := filepath.Join(t.TempDir(), "t")
	code, out, errOut := e.run(t, false, "install", srv.URL, "--dir", target)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "installed\talpha\t")
	assert.Contains(t, out, "installed\tbeta\t")
	assert.NotContains(t, errOut, "plain http", "http on this machine is not warned about")
	assert.FileExists(t, filepath.Join(target, "alpha", "scripts", "run.sh"), "an archive entry brings its files")
	assert.FileExists(t, filepath.Join(target, "beta", "SKILL.md"), "a skill-md entry is its SKILL.md")
	lock, err := os.ReadFile(filepath.Join(target, ".skillctl-lock.json"))
	require.NoError(t, err)
	assert.Contains(t, string(lock), `"kind": "wellknown"`)
	assert.Contains(t, string(lock), `"location": "`+srv.URL+`/.well-known/agent-skills/index.json"`)

	one := filepath.Join(t.TempDir(), "one")
	code, out, errOut = e.run(t, false, "install", srv.URL+"/.well-known/agent-skills/index.json", "--skill", "beta", "--dir", one)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "installed\tbeta\t")
	assert.NotContains(t, out, "alpha")

	// restore fetches the index again and checks the trees
	require.NoError(t, os.RemoveAll(filepath.Join(target, "alpha")))
	code, out, errOut = e.run(t, false, "install", "--dir", target)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "installed\talpha\t")
	assert.Contains(t, out, "unchanged\tbeta\t")

	// outdated compares the index's digests with the lock's; a skill that
	// changes on the site is outdated, and update takes it
	code, out, errOut = e.run(t, false, "outdated", "--dir", target)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^alpha\t[0-9a-f]{12}\t[0-9a-f]{12}\tup-to-date\t`, out)
	assert.Regexp(t, `(?m)^beta\t.*\tup-to-date\t`, out)
	require.NoError(t, os.WriteFile(filepath.Join(e.home, ".claude", "skills", "beta", "SKILL.md"),
		[]byte("---\nname: beta\ndescription: Beta, version two.\n---\nBody two.\n"), 0o644))
	code, _, errOut = e.run(t, false, "index", "--format", "wellknown", "--out", site)
	require.Equal(t, 0, code, errOut)
	code, out, errOut = e.run(t, false, "outdated", "--dir", target)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^beta\t.*\toutdated\t`, out)
	assert.Regexp(t, `(?m)^alpha\t.*\tup-to-date\t`, out)
	code, out, errOut = e.run(t, false, "update", "--dir", target)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "beta\tupdated\t")
	b, err := os.ReadFile(filepath.Join(target, "beta", "SKILL.md"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "version two")

	// a digest that does not match: refused, nothing changed
	idxPath := filepath.Join(site, ".well-known", "agent-skills", "index.json")
	idx, err := os.ReadFile(idxPath)
	require.NoError(t, err)
	i := strings.Index(string(idx), `"digest": "sha256:`) + len(`"digest": "sha256:`)
	bad := string(idx[:i]) + strings.Repeat("0", 64) + string(idx[i+64:])
	require.NoError(t, os.WriteFile(idxPath, []byte(bad), 0o644))
	other := filepath.Join(t.TempDir(), "other")
	code, _, errOut = e.run(t, false, "install", srv.URL, "--dir", other)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "the index says sha256:"+strings.Repeat("0", 64))
	assert.Contains(t, errOut, "nothing was installed")
	assert.NoDirExists(t, other)

	code, _, errOut = e.run(t, false, "install", srv.URL, "--skill", "nope", "--dir", other)
	assert.Equal(t, 3, code, errOut)
	assert.Contains(t, errOut, "no skill named nope in the index (it lists alpha, beta)")
}
