// Package synth generates synthetic skills for benchmarks and large tests.
package synth

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

var words = strings.Fields(`data report parse convert chart invoice summary schema query table image
resize audit deploy review test lint format release notes translate extract merge split archive index
search budget ledger forecast cluster metric alert trace profile cache queue stream`)

// Options shape the generated skills.
type Options struct {
	// Count of skills.
	Count int
	// Seed makes the output repeatable.
	Seed int64
	// BodyLines is the number of body lines per skill (default 30).
	BodyLines int
	// Scripts adds a scripts/run.sh to every tenth skill.
	Scripts bool
}

// Generate writes Count skill folders under root (created if needed) and returns their names.
func Generate(root string, o Options) ([]string, error) {
	if o.BodyLines == 0 {
		o.BodyLines = 30
	}
	r := rand.New(rand.NewSource(o.Seed))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	names := make([]string, 0, o.Count)
	for i := 0; i < o.Count; i++ {
		name := fmt.Sprintf("%s-%s-%05d", words[r.Intn(len(words))], words[r.Intn(len(words))], i)
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "---\nname: %s\n", name)
		fmt.Fprintf(&b, "description: %s. Use when the user asks to %s %s or %s %s files.\n",
			sentence(r, 12), words[r.Intn(len(words))], words[r.Intn(len(words))], words[r.Intn(len(words))], words[r.Intn(len(words))])
		b.WriteString("license: MIT\n")
		if i%3 == 0 {
			b.WriteString("metadata:\n  mode: direct\n  version: \"1.0\"\n  author: bench\n")
		} else {
			fmt.Fprintf(&b, "metadata:\n  version: \"0.%d\"\n", i%10)
		}
		b.WriteString("---\n\n")
		fmt.Fprintf(&b, "# %s\n\n", name)
		for l := 0; l < o.BodyLines; l++ {
			if l%8 == 0 {
				fmt.Fprintf(&b, "\n## Step %d\n\n", l/8+1)
			}
			b.WriteString(sentence(r, 10+r.Intn(8)))
			b.WriteString(".\n")
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		if o.Scripts && i%10 == 0 {
			if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\ncat\n"), 0o755); err != nil {
				return nil, err
			}
		}
		names = append(names, name)
	}
	return names, nil
}

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.Intn(len(words))]
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:]
}
