package install_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillctl/skillctl/pkg/install"
)

// BenchmarkInstall100Skills installs a 100-skill, ~20 MB zip into a fresh
// target each time (SPEC §10: at most 1.5x `unzip -q` of the same archive).
func BenchmarkInstall100Skills(b *testing.B) {
	for _, n := range []int{100, 200} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			var buf bytes.Buffer
			if err := install.WriteBenchArchive(&buf, n, 384<<10); err != nil {
				b.Fatal(err)
			}
			src := filepath.Join(dir, "bench.zip")
			if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(buf.Len()))
			b.ResetTimer()
			for i := range b.N {
				root := filepath.Join(dir, fmt.Sprintf("root-%d", i))
				res, err := install.New(install.Options{Sources: []string{src}, Roots: []string{root}}).Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Skills) != n {
					b.Fatalf("installed %d skills, want %d", len(res.Skills), n)
				}
				b.StopTimer()
				os.RemoveAll(root)
				b.StartTimer()
			}
		})
	}
}

func TestBenchArchiveIsReproducible(t *testing.T) {
	var a, b bytes.Buffer
	if err := install.WriteBenchArchive(&a, 3, 40<<10); err != nil {
		t.Fatal(err)
	}
	if err := install.WriteBenchArchive(&b, 3, 40<<10); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two archives from the same arguments differ")
	}
}

// BenchmarkInstallBesideMany installs and uninstalls one skill in a root
// holding 1,000 managed skills (SPEC §10: ≤ 1.5× the same in an empty root).
func BenchmarkInstallBesideMany(b *testing.B) {
	dir := b.TempDir()
	var buf bytes.Buffer
	if err := install.WriteBenchArchive(&buf, 1000, 0); err != nil {
		b.Fatal(err)
	}
	many := filepath.Join(dir, "many.zip")
	if err := os.WriteFile(many, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	one := filepath.Join(dir, "one")
	if err := os.MkdirAll(one, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(one, "SKILL.md"), []byte("---\nname: one\ndescription: One.\n---\nB\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	full, empty := filepath.Join(dir, "full"), filepath.Join(dir, "empty")
	if _, err := install.New(install.Options{Sources: []string{many}, Roots: []string{full}}).Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	// The user scope: two agent folders, one lock beside them.
	scope := func(home string) ([]string, string) {
		return []string{filepath.Join(home, "claude"), filepath.Join(home, "codex")}, filepath.Join(home, "skills.lock")
	}
	fullRoots, fullLock := scope(filepath.Join(dir, "home-full"))
	if _, err := install.New(install.Options{Sources: []string{many}, Roots: fullRoots, LockFile: fullLock}).Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	emptyRoots, emptyLock := scope(filepath.Join(dir, "home-empty"))
	for _, c := range []struct {
		name  string
		roots []string
		lock  string
	}{{"dir-full", []string{full}, ""}, {"dir-empty", []string{empty}, ""}, {"scope-full", fullRoots, fullLock}, {"scope-empty", emptyRoots, emptyLock}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, err := install.New(install.Options{Sources: []string{one}, Roots: c.roots, LockFile: c.lock}).Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				if _, err := install.NewUninstaller(install.UninstallOptions{Names: []string{"one"}, Roots: c.roots, LockFile: c.lock}).Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
