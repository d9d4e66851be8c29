package index

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const block = "<!-- skillctl:begin -->\n"

func TestSplice(t *testing.T) {
	content := []byte("<available_skills>\n</available_skills>\n")
	tests := []struct {
		name string
		old  string
		want string
	}{
		{"empty file", "",
			block + "<available_skills>\n</available_skills>\n<!-- skillctl:end -->\n"},
		{"text without markers, final newline", "# Agents\n",
			"# Agents\n\n" + block + "<available_skills>\n</available_skills>\n<!-- skillctl:end -->\n"},
		{"text without markers, no final newline", "# Agents",
			"# Agents\n\n" + block + "<available_skills>\n</available_skills>\n<!-- skillctl:end -->\n"},
		{"block between text", "before\n" + block + "old\n<!-- skillctl:end -->\nafter\n",
			"before\n" + block + "<available_skills>\n</available_skills>\n<!-- skillctl:end -->\nafter\n"},
		{"block without newlines around it", "before <!-- skillctl:begin -->old<!-- skillctl:end --> after",
			"before " + block + "<available_skills>\n</available_skills>\n<!-- skillctl:end --> after"},
		{"empty block", "x\n<!-- skillctl:begin --><!-- skillctl:end -->\ny",
			"x\n" + block + "<available_skills>\n</available_skills>\n<!-- skillctl:end -->\ny"},
		{"CRLF file", "before\r\n<!-- skillctl:begin -->\r\nold\r\n<!-- skillctl:end -->\r\nafter\r\n",
			"before\r\n<!-- skillctl:begin -->\r\n<available_skills>\r\n</available_skills>\r\n<!-- skillctl:end -->\r\nafter\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Splice([]byte(tt.old), content, "F.md")
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			again, err := Splice(got, content, "F.md")
			require.NoError(t, err)
			assert.Equal(t, string(got), string(again), "splicing twice changes nothing")
		})
	}
}

func TestSpliceAddsMissingFinalNewlineToContent(t *testing.T) {
	got, err := Splice(nil, []byte("x"), "F.md")
	require.NoError(t, err)
	assert.Equal(t, block+"x\n<!-- skillctl:end -->\n", string(got))
}

func TestSpliceRefusesBrokenMarkers(t *testing.T) {
	tests := []struct {
		name, old, msg string
	}{
		{"begin only", "a\n<!-- skillctl:begin -->\nb\n", "F.md:2: <!-- skillctl:begin --> is never closed"},
		{"end only", "a\nb\n<!-- skillctl:end -->\n", "F.md:3: <!-- skillctl:end --> has no <!-- skillctl:begin -->"},
		{"end before begin", "<!-- skillctl:end -->\n<!-- skillctl:begin -->\n", "F.md:1: <!-- skillctl:end --> comes before <!-- skillctl:begin --> (line 2)"},
		{"two begins", "<!-- skillctl:begin -->\n<!-- skillctl:begin -->\n<!-- skillctl:end -->\n", "F.md:2: a second <!-- skillctl:begin --> marker (the first is on line 1)"},
		{"two ends", "<!-- skillctl:begin -->\n<!-- skillctl:end -->\n\n<!-- skillctl:end -->\n", "F.md:4: a second <!-- skillctl:end --> marker (the first is on line 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Splice([]byte(tt.old), []byte("x\n"), "F.md")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestWriteBlockKeepsTheRestOfTheFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "AGENTS.md")
	before := "# Project\n\nSome rules.\n\n"
	after := "\n## More\n\nText after the block, without a final newline"
	require.NoError(t, os.WriteFile(file, []byte(before+"<!-- skillctl:begin -->\nstale\n<!-- skillctl:end -->"+after), 0o640))

	changed, err := WriteBlock(file, []byte("fresh\n"))
	require.NoError(t, err)
	assert.True(t, changed)
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, before+"<!-- skillctl:begin -->\nfresh\n<!-- skillctl:end -->"+after, string(got))
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(file)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "the file keeps its permissions")
	}

	fiBefore, err := os.Stat(file)
	require.NoError(t, err)
	changed, err = WriteBlock(file, []byte("fresh\n"))
	require.NoError(t, err)
	assert.False(t, changed, "the second run changes nothing")
	again, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(got), string(again))
	fiAfter, err := os.Stat(file)
	require.NoError(t, err)
	assert.True(t, os.SameFile(fiBefore, fiAfter), "an unchanged file is not rewritten")
	assertNoTempFiles(t, dir)
}

func TestWriteBlockCreatesMissingFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "new.md")
	changed, err := WriteBlock(file, []byte("<available_skills>\n</available_skills>\n"))
	require.NoError(t, err)
	assert.True(t, changed)
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	want := "<!-- skillctl:begin -->\n<available_skills>\n</available_skills>\n<!-- skillctl:end -->\n"
	assert.Equal(t, want, string(got))

	changed, err = WriteBlock(file, []byte("<available_skills>\n</available_skills>\n"))
	require.NoError(t, err)
	assert.False(t, changed)
	got, err = os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, want, string(got))
	assertNoTempFiles(t, dir)
}

func TestWriteBlockLeavesFileAloneOnError(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "AGENTS.md")
	orig := "x\n<!-- skillctl:begin -->\nno end marker\n"
	require.NoError(t, os.WriteFile(file, []byte(orig), 0o644))
	changed, err := WriteBlock(file, []byte("new\n"))
	require.Error(t, err)
	assert.False(t, changed)
	assert.Contains(t, err.Error(), "AGENTS.md:2:")
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, orig, string(got))
	assertNoTempFiles(t, dir)

	_, err = WriteBlock(filepath.Join(dir, "missing", "x.md"), []byte("new\n"))
	assert.ErrorContains(t, err, "does not exist")
}

// Attack 12: --write followed a symbolic link (AGENTS.md pointing at
// ~/.ssh/authorized_keys got the catalog appended). A link is refused and
// what it points to stays as it was.
func TestWriteBlockRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "authorized_keys")
	require.NoError(t, os.WriteFile(target, []byte("ssh-ed25519 AAAA me\n"), 0o600))
	link := filepath.Join(dir, "AGENTS.md")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symbolic links are not available here: %v", err)
	}
	_, err := WriteBlock(link, []byte("x\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symbolic link")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "ssh-ed25519 AAAA me\n", string(got))
}

// A read-only file is refused (not replaced), and an updated file keeps
// its mode.
func TestWriteBlockReadOnlyAndMode(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro.md")
	require.NoError(t, os.WriteFile(ro, []byte("keep\n"), 0o444))
	_, err := WriteBlock(ro, []byte("x\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read-only")
	got, _ := os.ReadFile(ro)
	assert.Equal(t, "keep\n", string(got))

	private := filepath.Join(dir, "private.md")
	require.NoError(t, os.WriteFile(private, []byte("top\n"), 0o600))
	_, err = WriteBlock(private, []byte("x\n"))
	require.NoError(t, err)
	fi, err := os.Stat(private)
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		assert.NotContains(t, e.Name(), ".tmp-", "temporary file left behind")
	}
}
