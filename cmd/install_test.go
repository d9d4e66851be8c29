package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/internal/iostreams"
	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
)

func testFactory(t *testing.T, home string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	f := NewFactory(ios, func(k string) string { return env[k] })
	return f, out, errOut
}

func TestInstallFlags(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		name      string
		args      []string
		wantRoots []string
		wantErr   string
	}{
		{name: "default: the claude user folder", args: []string{"x.zip"}, wantRoots: []string{filepath.Join(home, ".claude", "skills")}},
		{name: "agents", args: []string{"x.zip", "--agent", "codex", "--agent", "agents"}, wantRoots: []string{filepath.Join(home, ".codex", "skills"), filepath.Join(home, ".agents", "skills")}},
		{name: "project", args: []string{"x.zip", "--scope", "project", "--agent", "opencode"}, wantRoots: []string{filepath.Join(cwd, ".opencode", "skills")}},
		{name: "dir", args: []string{"x.zip", "--dir", "out"}, wantRoots: []string{filepath.Join(cwd, "out")}},
		{name: "bad scope", args: []string{"x.zip", "--scope", "world"}, wantErr: "--scope must be user or project"},
		{name: "dir and scope", args: []string{"x.zip", "--dir", "d", "--scope", "user"}, wantErr: "cannot be used together"},
		{name: "sha256 with two sources", args: []string{"a.zip", "b.zip", "--sha256", "00"}, wantErr: "one source"},
		{name: "list without a source", args: []string{"--list"}, wantErr: "--list needs a SOURCE"},
		{name: "frozen with a source", args: []string{"x.zip", "--frozen"}, wantErr: "give no SOURCE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _, _ := testFactory(t, home)
			got, err := parseCommand(f, "install", newInstallCmd, append([]string{"-C", cwd, "install"}, tc.args...)...)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			roots, err := install.TargetRoots(got.Targets)
			require.NoError(t, err)
			assert.Equal(t, tc.wantRoots, roots)
		})
	}
}

func TestInstallRunOutput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "demo.zip")
	require.NoError(t, os.WriteFile(src, at.Zip(at.Skill("demo", "demo")), 0o644))
	for _, tc := range []struct {
		name string
		tty  bool
		json bool
		want []string
	}{
		{name: "pipe", want: []string{"installed\tdemo\t-\t"}},
		{name: "terminal", tty: true, want: []string{"installed", " demo - → ", "(from " + src + ")"}},
		{name: "json", json: true, want: []string{`"name": "demo"`, `"treeSha256"`, `"status": "installed"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			ios.SetTTY(tc.tty)
			opts := &installOptions{IO: ios, JSON: tc.json, Sources: []string{src}, MaxEntries: 10_000,
				MaxFileSize: "100MiB", MaxTotalSize: "512MiB", MaxDownload: "512MiB",
				Targets: install.TargetOptions{Dir: filepath.Join(t.TempDir(), "skills")}}
			require.NoError(t, installRun(context.Background(), opts))
			for _, w := range tc.want {
				assert.Contains(t, out.String(), w)
			}
			if tc.json {
				var v struct{ Skills []map[string]any }
				require.NoError(t, json.Unmarshal(out.Bytes(), &v))
				assert.Len(t, v.Skills, 1)
			}
			if !tc.tty {
				assert.NotContains(t, out.String(), "\x1b[", "no color in a pipe")
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "2GiB": 2 << 30, "100mb": 100_000_000, "1024": 1024, "1k": 1024, "unlimited": -1, "0": -1} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := parseSize("lots")
	assert.Error(t, err)
}

func TestUninstallAndPackRun(t *testing.T) {
	dir := t.TempDir()
	skillDir := filepath.Join(dir, "demo")
	require.NoError(t, os.MkdirAll(skillDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte("---\nname: demo\ndescription: Demo.\n---\nBody.\n"), 0o644))

	ios, _, out, _ := iostreams.Test()
	require.NoError(t, packRun(context.Background(), &packOptions{IO: ios, Cwd: dir, Dir: "demo", Output: "demo.tgz"}))
	assert.Regexp(t, `^[0-9a-f]{64}  demo.tgz\n$`, out.String())

	targets := install.TargetOptions{Dir: filepath.Join(dir, "skills")}
	ios, _, _, _ = iostreams.Test()
	require.NoError(t, installRun(context.Background(), &installOptions{IO: ios, Sources: []string{filepath.Join(dir, "demo.tgz")}, Targets: targets,
		MaxEntries: 10, MaxFileSize: "1MiB", MaxTotalSize: "1MiB", MaxDownload: "1MiB"}))
	ios, _, out, _ = iostreams.Test()
	require.NoError(t, uninstallRun(context.Background(), &uninstallOptions{IO: ios, Names: []string{"demo"}, Targets: targets}))
	assert.Equal(t, "demo\tuninstalled\t"+filepath.Join(dir, "skills", "demo")+"\n", out.String())
}

// A folder whose name is the new skill's after Unicode normalisation (NFKC)
// is a conflict --force does not get past, and the error does not offer it.
func TestInstallRefusesNormalisedNamesake(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "pdf.zip")
	require.NoError(t, os.WriteFile(src, at.Zip(at.Skill("pdf", "pdf")), 0o644))
	root := filepath.Join(dir, "skills")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "\uff50\uff44\uff46"), 0o755)) // fullwidth "pdf"
	for _, force := range []bool{false, true} {
		ios, _, _, _ := iostreams.Test()
		err := installRun(context.Background(), &installOptions{IO: ios, Sources: []string{src}, MaxEntries: 10_000, Force: force,
			MaxFileSize: "100MiB", MaxTotalSize: "512MiB", MaxDownload: "512MiB", Targets: install.TargetOptions{Dir: root}})
		require.ErrorIs(t, err, install.ErrConflict, "force=%v", force)
		assert.Contains(t, err.Error(), "after Unicode normalisation (NFKC)")
		assert.NotContains(t, err.Error(), "--force", "force=%v", force)
		assert.NoDirExists(t, filepath.Join(root, "pdf"))
	}
}
