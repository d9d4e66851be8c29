package install_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
)

// The steps of a commit, in order. "aside:demo" exists only where the swap
// is two renames (no atomic exchange).
var installSteps = []string{"staged", "journal", "aside:demo", "swapped:demo", "lock", "journal-removed"}

// TestMain lets the test binary act as an install that is killed at a step:
// with SKILLCTL_CRASH_AT set it installs SKILLCTL_CRASH_SRC into
// SKILLCTL_CRASH_ROOT and exits abruptly at that step.
func TestMain(m *testing.M) {
	if step := os.Getenv("SKILLCTL_CRASH_AT"); step != "" {
		if os.Getenv("SKILLCTL_CRASH_NOEXCHANGE") != "" {
			install.NoExchange()
		}
		in := install.New(install.Options{Sources: []string{os.Getenv("SKILLCTL_CRASH_SRC")}, Roots: []string{os.Getenv("SKILLCTL_CRASH_ROOT")}})
		in.SetFault(func(s string) error {
			if s == step {
				os.Exit(137) // no deferred cleanup, no unlock: as if killed
			}
			return nil
		})
		_, err := in.Run(context.Background())
		fmt.Fprintln(os.Stderr, "install finished without reaching the step:", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

type crashFixture struct {
	root, oldSrc, newSrc string
	oldTree, newTree     string
}

// newCrashFixture installs an old version of demo and prepares a new one
// from the same source location.
func newCrashFixture(t *testing.T) *crashFixture {
	base := t.TempDir()
	f := &crashFixture{root: filepath.Join(base, "skills")}
	f.oldSrc = writeArchive(t, base, "demo.zip", at.Zip(goodSkill("demo", "old\n")))
	res, err := run(t, install.Options{Sources: []string{f.oldSrc}, Roots: []string{f.root}})
	require.NoError(t, err)
	f.oldTree = res.Skills[0].TreeSha256
	newEntries := append(goodSkill("demo", "new\n"), at.Entry{Name: "demo/references/MORE.md", Body: "more\n"})
	f.newSrc = writeArchive(t, base, "demo.zip", at.Zip(newEntries))
	res, err = run(t, install.Options{Sources: []string{f.newSrc}, Roots: []string{t.TempDir()}})
	require.NoError(t, err)
	f.newTree = res.Skills[0].TreeSha256
	return f
}

// checkWhole asserts the target holds the old or the new skill, whole.
func (f *crashFixture) checkWhole(t *testing.T) string {
	t.Helper()
	tree, err := install.TreeSHA256(context.Background(), filepath.Join(f.root, "demo"))
	require.NoError(t, err, "the skill folder is there")
	require.Contains(t, []string{f.oldTree, f.newTree}, tree, "the old skill or the new one, never a mix")
	_, err = install.ReadLock(f.root)
	require.NoError(t, err, "the lock file parses")
	if tree == f.oldTree {
		return "old"
	}
	return "new"
}

// checkWholeUnlessAside is checkWhole, except between the two renames of
// the fallback swap: there the old folder waits in the staging folder, and
// only the next run's recovery puts it back (see docs/install.md).
func (f *crashFixture) checkWholeUnlessAside(t *testing.T, step string) {
	t.Helper()
	if strings.HasPrefix(step, "aside:") {
		assert.NoDirExists(t, filepath.Join(f.root, "demo"))
		return
	}
	f.checkWhole(t)
}

// checkRecovered runs the next install's recovery and checks the lock
// matches the disk and no staging folder is left.
func (f *crashFixture) checkRecovered(t *testing.T) {
	t.Helper()
	require.NoError(t, install.Recover(f.root))
	f.checkWhole(t)
	requireLockMatchesDisk(t, f.root)
	assert.Empty(t, stagingLeft(t, f.root))
	// And the next install works.
	_, err := run(t, install.Options{Sources: []string{f.newSrc}, Roots: []string{f.root}})
	require.NoError(t, err)
	requireLockMatchesDisk(t, f.root)
	assert.Empty(t, stagingLeft(t, f.root))
}

func TestCrashAtEveryStep(t *testing.T) {
	for _, exchange := range []bool{true, false} {
		for _, step := range installSteps {
			if exchange && strings.HasPrefix(step, "aside:") {
				continue
			}
			name := fmt.Sprintf("exchange=%v/%s", exchange, step)
			t.Run(name+"/simulated", func(t *testing.T) {
				if !exchange {
					defer install.NoExchange()()
				}
				f := newCrashFixture(t)
				in := install.New(install.Options{Sources: []string{f.newSrc}, Roots: []string{f.root}})
				reached := false
				in.SetFault(func(s string) error {
					if s == step {
						reached = true
						return install.ErrCrash
					}
					return nil
				})
				_, err := in.Run(context.Background())
				require.ErrorIs(t, err, install.ErrCrash)
				require.True(t, reached)
				f.checkWholeUnlessAside(t, step)
				f.checkRecovered(t)
			})
			t.Run(name+"/failed", func(t *testing.T) {
				if !exchange {
					defer install.NoExchange()()
				}
				f := newCrashFixture(t)
				in := install.New(install.Options{Sources: []string{f.newSrc}, Roots: []string{f.root}})
				in.SetFault(func(s string) error {
					if s == step {
						return errors.New("disk on fire")
					}
					return nil
				})
				_, err := in.Run(context.Background())
				require.ErrorContains(t, err, "disk on fire")
				// A failure (not a crash) is cleaned up at once.
				f.checkWhole(t)
				requireLockMatchesDisk(t, f.root)
				assert.Empty(t, stagingLeft(t, f.root))
			})
			t.Run(name+"/killed", func(t *testing.T) {
				if testing.Short() {
					t.Skip("starts a process per step")
				}
				f := newCrashFixture(t)
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "SKILLCTL_CRASH_AT="+step, "SKILLCTL_CRASH_SRC="+f.newSrc, "SKILLCTL_CRASH_ROOT="+f.root)
				if !exchange {
					cmd.Env = append(cmd.Env, "SKILLCTL_CRASH_NOEXCHANGE=1")
				}
				out, err := cmd.CombinedOutput()
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee, "%s", out)
				require.Equal(t, 137, ee.ExitCode(), "the process died at the step: %s", out)
				f.checkWholeUnlessAside(t, step)
				f.checkRecovered(t)
			})
		}
	}
}

func TestCrashDuringUninstall(t *testing.T) {
	for _, step := range []string{"staged", "journal", "removed:demo", "lock", "journal-removed"} {
		t.Run(step, func(t *testing.T) {
			f := newCrashFixture(t)
			u := install.NewUninstaller(install.UninstallOptions{Names: []string{"demo"}, Roots: []string{f.root}})
			u.SetFault(func(s string) error {
				if s == step {
					return install.ErrCrash
				}
				return nil
			})
			_, err := u.Run(context.Background())
			require.ErrorIs(t, err, install.ErrCrash)
			require.NoError(t, install.Recover(f.root))
			lock := requireLockMatchesDisk(t, f.root)
			inLock := lock.Has("demo")
			_, statErr := os.Stat(filepath.Join(f.root, "demo"))
			assert.Equal(t, statErr == nil, inLock, "the lock records demo exactly when it is on disk")
			assert.Empty(t, stagingLeft(t, f.root))
		})
	}
}

// Attack 11: the disk fills up while the lock is rewritten. The new
// version was left in place with the old lock, and a staging folder that
// blocked every later install. Now the install fails with everything as it
// was (old skill, old lock, no staging folder), and the next install works
// once there is room again — for an update and for a fresh install, with
// and without the atomic exchange.
func TestDiskFullWhileWritingTheLock(t *testing.T) {
	for _, exchange := range []bool{true, false} {
		t.Run(fmt.Sprintf("exchange=%v", exchange), func(t *testing.T) {
			if !exchange {
				defer install.NoExchange()()
			}
			f := newCrashFixture(t)
			lockBefore, err := os.ReadFile(filepath.Join(f.root, install.LockFileName))
			require.NoError(t, err)
			other := writeArchive(t, t.TempDir(), "other.zip", at.Zip(goodSkill("other", "x\n")))
			restore := install.FailLockWrites(syscall.ENOSPC)
			_, err = run(t, install.Options{Sources: []string{f.newSrc, other}, Roots: []string{f.root}})
			restore()
			require.ErrorIs(t, err, syscall.ENOSPC)
			assert.Equal(t, "old", f.checkWhole(t))
			assert.NoDirExists(t, filepath.Join(f.root, "other"), "the fresh install is undone")
			lockAfter, err := os.ReadFile(filepath.Join(f.root, install.LockFileName))
			require.NoError(t, err)
			assert.Equal(t, string(lockBefore), string(lockAfter))
			assert.Empty(t, stagingLeft(t, f.root))
			_, err = run(t, install.Options{Sources: []string{f.newSrc}, Roots: []string{f.root}})
			require.NoError(t, err)
			assert.Equal(t, "new", f.checkWhole(t))
			requireLockMatchesDisk(t, f.root)
		})
	}
}

// A crash left a journal, and when the next command recovers, the disk is
// still full: recovery goes back to the old state instead of failing, and
// leaves nothing behind.
func TestRecoveryOnAFullDisk(t *testing.T) {
	f := newCrashFixture(t)
	in := install.New(install.Options{Sources: []string{f.newSrc}, Roots: []string{f.root}})
	in.SetFault(func(s string) error {
		if s == "swapped:demo" {
			return install.ErrCrash
		}
		return nil
	})
	_, err := in.Run(context.Background())
	require.ErrorIs(t, err, install.ErrCrash)
	restore := install.FailLockWrites(syscall.ENOSPC)
	err = install.Recover(f.root)
	restore()
	require.NoError(t, err)
	assert.Equal(t, "old", f.checkWhole(t))
	requireLockMatchesDisk(t, f.root)
	assert.Empty(t, stagingLeft(t, f.root))
}
