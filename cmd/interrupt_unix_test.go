//go:build unix

package cmd_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive/archivetest"
)

// skillctlBinary is the test binary under the name "skillctl": TestMain
// runs cmd.Main when it is started so.
func skillctlBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "skillctl")
	require.NoError(t, os.Symlink(self, bin))
	return bin
}

type started struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

func startSkillctl(t *testing.T, dir string, args ...string) *started {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	require.NoError(t, os.MkdirAll(home, 0o755))
	s := &started{cmd: exec.Command(skillctlBinary(t), args...), done: make(chan error, 1)}
	s.cmd.Dir = dir
	s.cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"), "PATH=" + os.Getenv("PATH"), "TMPDIR=" + t.TempDir()}
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	require.NoError(t, s.cmd.Start())
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() { _ = s.cmd.Process.Kill() })
	return s
}

// interruptWhen waits until ready says the command is busy, sends SIGINT,
// and checks that it exits 130 within a second (SPEC §4; five under the
// race detector, which slows every step down many times over).
func (s *started) interruptWhen(t *testing.T, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ready() {
		select {
		case err := <-s.done:
			t.Fatalf("skillctl ended before it could be interrupted (%v): make the input bigger\nstderr: %s", err, s.stderr.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "skillctl never got busy")
		time.Sleep(5 * time.Millisecond)
	}
	sent := time.Now()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGINT))
	select {
	case err := <-s.done:
		took := time.Since(sent)
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "skillctl exited %v; stderr: %s", err, s.stderr.String())
		assert.Equal(t, 130, ee.ExitCode(), "stderr: %s", s.stderr.String())
		limit := time.Second
		if raceEnabled {
			limit = 5 * time.Second
		}
		assert.Less(t, took, limit, "skillctl stopped %s after the interrupt", took)
		assert.Contains(t, s.stderr.String(), "Interrupted.")
		assert.NotContains(t, s.stderr.String(), "context canceled")
	case <-time.After(10 * time.Second):
		t.Fatalf("skillctl did not stop within 10 s of SIGINT; stderr: %s", s.stderr.String())
	}
}

func writeSkill(t *testing.T, dir, name string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"),
		[]byte("---\nname: "+name+"\ndescription: Does "+name+" things.\n---\n# "+name+"\n"), 0o644))
}

// bigSkill is a skill with a 2 GiB sparse file: cheap to make, slow to read.
func bigSkill(t *testing.T, dir, name string) {
	t.Helper()
	writeSkill(t, dir, name)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	f, err := os.Create(filepath.Join(dir, "assets", "big.bin"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(2<<30))
	require.NoError(t, f.Close())
}

func namesIn(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// written is the number of bytes in the files below dir whose path (from
// dir) starts with prefix: how far a command has got with its output.
func written(dir, prefix string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if rel, _ := filepath.Rel(dir, p); strings.HasPrefix(rel, prefix) {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func TestInterruptPack(t *testing.T) {
	work := t.TempDir()
	bigSkill(t, filepath.Join(work, "big"), "big")
	out := filepath.Join(work, "dist")
	require.NoError(t, os.MkdirAll(out, 0o755))
	s := startSkillctl(t, work, "pack", "big", "-o", filepath.Join(out, "big.skill"))
	// mid-way: the archive of zeros is being written (it ends near 2 MiB)
	s.interruptWhen(t, func() bool { return written(out, ".big.skill.tmp-") > 32<<10 })
	assert.Empty(t, namesIn(t, out), "no archive and no temporary file is left")
}

func TestInterruptIndexWellKnown(t *testing.T) {
	work := t.TempDir()
	bigSkill(t, filepath.Join(work, "skills", "big"), "big")
	site := filepath.Join(work, "site")
	s := startSkillctl(t, work, "index", "skills", "--format", "wellknown", "--out", site)
	wk := filepath.Join(site, ".well-known")
	s.interruptWhen(t, func() bool { return written(wk, ".agent-skills.tmp-") > 32<<10 })
	assert.Empty(t, namesIn(t, wk), "no site and no staging folder is left")
}

func TestInterruptInstall(t *testing.T) {
	work := t.TempDir()
	entries := archivetest.Skill("big", "big")
	for i := range 4 {
		entries = append(entries, archivetest.Entry{Name: fmt.Sprintf("big/assets/part%d.bin", i), Zeros: 100 << 20})
	}
	arc := filepath.Join(work, "big.tar.gz")
	require.NoError(t, os.WriteFile(arc, archivetest.TarGz(entries), 0o644))
	root := filepath.Join(work, "skills")
	writeSkill(t, filepath.Join(root, "kept"), "kept")
	s := startSkillctl(t, work, "install", arc, "--dir", root)
	// mid-way: the first 100 MiB part is being unpacked
	s.interruptWhen(t, func() bool { return written(root, ".skillctl-staging-") > 8<<20 })
	assert.Equal(t, []string{"kept"}, namesIn(t, root), "no staging and no half-installed skill is left")
}

func TestInterruptValidateTree(t *testing.T) {
	work := t.TempDir()
	// One SKILL.md with a 256 KiB frontmatter, linked from thousands of
	// skill folders: slow to validate, cheap to make.
	var fm strings.Builder
	fm.WriteString("---\nname: slow\ndescription: Slow to read.\nmetadata:\n")
	for i := 0; fm.Len() < 256<<10; i++ {
		fmt.Fprintf(&fm, "  k%d: v\n", i)
	}
	fm.WriteString("---\nBody.\n")
	shared := filepath.Join(work, "SKILL.md")
	require.NoError(t, os.WriteFile(shared, []byte(fm.String()), 0o644))
	tree := filepath.Join(work, "tree")
	for i := range 6000 {
		d := filepath.Join(tree, fmt.Sprintf("g%02d", i%60), fmt.Sprintf("slow-%d", i))
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.Symlink(shared, filepath.Join(d, "SKILL.md")))
	}
	s := startSkillctl(t, work, "validate", "tree")
	begun := time.Now()
	s.interruptWhen(t, func() bool { return time.Since(begun) > 700*time.Millisecond })
	assert.Empty(t, s.stdout.String(), "no partial report")
}

// TestInterruptGitClone: Ctrl-C while git waits on a server that never
// answers ends skillctl with 130 within the limit, git with it, and leaves
// neither the checkout's temp folder nor a target folder behind.
func TestInterruptGitClone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	var asked atomic.Bool
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(true)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	s := startSkillctl(t, dir, "install", srv.URL+"/acme/skills.git", "--dir", target)
	s.interruptWhen(t, asked.Load)
	var tmp string
	for _, kv := range s.cmd.Env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			tmp = v
		}
	}
	require.NotEmpty(t, tmp)
	for _, n := range namesIn(t, tmp) {
		assert.False(t, strings.HasPrefix(n, "skillctl-git-"), "the checkout %s was left in TMPDIR", n)
	}
	assert.NoDirExists(t, target)
}
