package audit_test

import (
	"context"
	"os"
	"testing"

	"github.com/skillctl/skillctl/pkg/audit"
)

// BenchmarkCorpus audits a tree of real skills ($SKILLCTL_AUDIT_TREE).
func BenchmarkCorpus(b *testing.B) {
	dir := os.Getenv("SKILLCTL_AUDIT_TREE")
	if dir == "" {
		b.Skip("set SKILLCTL_AUDIT_TREE to a tree of skills")
	}
	for range b.N {
		if _, err := audit.Run(context.Background(), []string{dir}, ""); err != nil {
			b.Fatal(err)
		}
	}
}
