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
