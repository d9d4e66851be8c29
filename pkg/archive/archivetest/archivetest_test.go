package archivetest_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
)

func TestZerosMakeValidArchives(t *testing.T) {
	es := []at.Entry{{Name: "a.txt", Body: "hello"}, {Name: "z.bin", Zeros: 8 << 20}, {Name: "b.txt", Body: "bye"}}
	zr, err := zip.NewReader(bytes.NewReader(at.Zip(es)), int64(len(at.Zip(es))))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		rc, _ := f.Open()
		n, err := io.Copy(io.Discard, rc)
		if err != nil || (f.Name == "z.bin") != (n == 8<<20) {
			t.Fatalf("zip %s: %d bytes, %v", f.Name, n, err)
		}
	}
	data := at.TarGz(es)
	if len(data) > 64<<10 {
		t.Fatalf("8 MiB of zeros took %d bytes", len(data))
	}
	gr, _ := gzip.NewReader(bytes.NewReader(data))
	tr := tar.NewReader(gr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, tr)
		if err != nil || n != h.Size {
			t.Fatalf("tar %s: %d bytes, %v", h.Name, n, err)
		}
	}
}
