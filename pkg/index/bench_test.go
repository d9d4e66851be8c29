package index

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkIndexXML measures what index adds to discovery for 1,000 skills:
// collecting them from a tree, selecting, and rendering the xml block.
func BenchmarkIndexXML(b *testing.B) {
	root := b.TempDir()
	for i := 0; i < 1000; i++ {
		name := fmt.Sprintf("s%04d", i)
		dir := filepath.Join(root, name)
		writeSkillB(b, dir, name, "Synthetic skill "+name+" & friends <test>. Use when benchmarking.")
	}
	got, err := Collect(context.Background(), []string{root}, "", true)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("collect", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Collect(context.Background(), []string{root}, "", true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("select+xml", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			items, _ := Select(got.Items, nil)
			_, _ = io.Discard.Write(XML(items))
		}
	})
}
