package validate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkValidateTree validates a tree of generated skills (the budget of
// SPEC §10 is measured on 10,000 by make bench; this tracks the per-skill cost).
func BenchmarkValidateTree(b *testing.B) {
	root := b.TempDir()
	const n = 2000
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
			b.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: Generated skill %d. Use when measuring.\nlicense: MIT\nmetadata:\n  version: \"1.0\"\n---\n# %s\n\n1. Read [the reference](references/REF.md).\n2. Answer.\n", name, i, name)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "references", "REF.md"), []byte("# Ref\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		rep, err := (&Validator{}).Run(context.Background(), []string{root})
		if err != nil || len(rep.Results) != n {
			b.Fatal(err, len(rep.Results))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/skill")
}
