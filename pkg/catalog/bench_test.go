package catalog

import (
	"context"
	"os"
	"testing"

	"github.com/skillctl/skillctl/pkg/skill"
)

func BenchmarkDiscover10k(b *testing.B) {
	root := os.Getenv("SKILLCTL_BENCH_ROOT")
	if root == "" {
		b.Skip("set SKILLCTL_BENCH_ROOT to a folder of generated skills")
	}
	for i := 0; i < b.N; i++ {
		cat, err := DiscoverRoots(context.Background(), []Root{{Dir: root, Source: skill.SourcePath}}, true)
		if err != nil || len(cat.Entries) == 0 {
			b.Fatal("no skills")
		}
	}
}
