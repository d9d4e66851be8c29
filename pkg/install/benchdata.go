package install

import (
	"archive/zip"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// WriteBenchArchive writes a zip of n synthetic skills of about perSkill
// bytes each (half text, half incompressible), for benchmarks: `make bench`
// installs a 100-skill, ~20 MB archive made by it and compares with unzip.
// The same arguments give the same bytes.
func WriteBenchArchive(w io.Writer, n, perSkill int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	zw := zip.NewWriter(w)
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 20) + "\n"
	for i := range n {
		name := fmt.Sprintf("bench-skill-%03d", i)
		files := []struct {
			path string
			body []byte
			mode uint32
		}{
			{"SKILL.md", []byte(fmt.Sprintf("---\nname: %s\ndescription: Synthetic skill %d for benchmarks.\nversion: 1.0.%d\n---\n# %s\n\nSee references/.\n", name, i, i, name)), 0o644},
			{"scripts/run.sh", []byte("#!/bin/sh\necho bench\n"), 0o755},
		}
		textBytes := perSkill / 2
		for j := 0; textBytes > 0; j++ {
			size := min(textBytes, 16<<10)
			files = append(files, struct {
				path string
				body []byte
				mode uint32
			}{fmt.Sprintf("references/ref-%02d.md", j), []byte(strings.Repeat(text, size/len(text)+1)[:size]), 0o644})
			textBytes -= size
		}
		binBytes := perSkill - perSkill/2
		for j := 0; binBytes > 0; j++ {
			size := min(binBytes, 64<<10)
			b := make([]byte, size)
			for k := range b {
				b[k] = byte(rng.Uint32())
			}
			files = append(files, struct {
				path string
				body []byte
				mode uint32
			}{fmt.Sprintf("assets/blob-%02d.bin", j), b, 0o644})
			binBytes -= size
		}
		for _, f := range files {
			h := &zip.FileHeader{Name: name + "/" + f.path, Method: zip.Deflate}
			h.SetMode(0o644)
			if f.mode == 0o755 {
				h.SetMode(0o755)
			}
			fw, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			if _, err := fw.Write(f.body); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}
