// Package golden compares rendered output with files under testdata/.
// Set UPDATE_GOLDEN=1 (make golden) to rewrite the files from the output.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// startDir is the test's package folder: tests may change folder later.
var startDir, _ = os.Getwd()

// Update reports whether golden files are being rewritten.
func Update() bool { return os.Getenv("UPDATE_GOLDEN") != "" }

// Assert compares got with the golden file at path (relative to the test's
// package), or rewrites the file when updating.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(startDir, path)
	}
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run make golden to create it)", path, err)
	}
	if string(want) != string(got) {
		t.Errorf("output differs from %s (run make golden to accept it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
