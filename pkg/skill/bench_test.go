package skill

import (
	"context"
	"os"
	"testing"
)

func BenchmarkDiscover10k(b *testing.B) {
	root := os.Getenv("SKILLCTL_BENCH_ROOT")
	if root == "" {
		b.Skip("set SKILLCTL_BENCH_ROOT to a folder of generated skills")
	}
	for i := 0; i < b.N; i++ {
		cat := DiscoverRoots(context.Background(), []Root{{Dir: root, Source: SourcePath}}, true)
		if len(cat.Entries) == 0 {
			b.Fatal("no skills")
		}
	}
}
