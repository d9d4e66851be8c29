package archive_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive"
	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
)

type builder struct {
	name  string
	build func([]at.Entry) []byte
}

var builders = []builder{{"zip", at.Zip}, {"tar.gz", at.TarGz}}

type seen struct {
	Name string
	Type archive.Type
	Mode fs.FileMode
	Link string
	Body string
}

func walkBytes(t *testing.T, data []byte, opts archive.Options) ([]seen, archive.Format, error) {
	t.Helper()
	var got []seen
	f, err := archive.Walk(context.Background(), bytes.NewReader(data), opts, func(e *archive.Entry) error {
		s := seen{Name: e.Name, Type: e.Type, Mode: e.Mode, Link: e.Link}
		if e.Type == archive.TypeFile {
			rc, err := e.Open()
			if err != nil {
				return err
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				return err
			}
			s.Body = string(b)
		}
		got = append(got, s)
		return nil
	})
	return got, f, err
}

func TestWalkGoodArchive(t *testing.T) {
	entries := append(at.Skill("demo", "demo"),
		at.Entry{Name: "demo/assets", Kind: at.Dir},
		at.Entry{Name: "demo\\assets\\t.tmpl", Body: "x"},
		at.Entry{Name: "demo/link.md", Kind: at.Symlink, Link: "references/NOTES.md"},
		at.Entry{Name: "__MACOSX/demo/._SKILL.md", Body: "junk"},
		at.Entry{Name: "demo/.DS_Store", Body: "junk"},
	)
	for _, b := range builders {
		t.Run(b.name, func(t *testing.T) {
			got, f, err := walkBytes(t, b.build(entries), archive.Options{})
			require.NoError(t, err)
			assert.Equal(t, archive.Format(b.name), f)
			names := map[string]seen{}
			for _, s := range got {
				names[s.Name] = s
			}
			assert.Len(t, got, 6, "ignored entries are skipped")
			assert.Equal(t, fs.FileMode(0o755), names["demo/scripts/run.sh"].Mode)
			assert.Equal(t, fs.FileMode(0o644), names["demo/SKILL.md"].Mode)
			assert.Equal(t, "x", names["demo/assets/t.tmpl"].Body, "backslashes become slashes")
			assert.Equal(t, archive.TypeSymlink, names["demo/link.md"].Type)
			assert.Equal(t, "references/NOTES.md", names["demo/link.md"].Link)
			assert.Contains(t, names["demo/SKILL.md"].Body, "name: demo")
		})
	}
}

func TestWalkFormats(t *testing.T) {
	entries := at.Skill("", "demo")
	tarData := at.Tar(entries)
	_, f, err := walkBytes(t, tarData, archive.Options{})
	require.NoError(t, err)
	assert.Equal(t, archive.FormatTar, f)
}

// hostile lists the archives every reader must refuse, with the entry the
// error must name and the kind of error.
func hostile() []struct {
	name    string
	entries []at.Entry
	entry   string
	kind    error
	tarOnly bool
	zipOnly bool
} {
	ok := at.Skill("demo", "demo")
	with := func(extra ...at.Entry) []at.Entry { return append(append([]at.Entry{}, ok...), extra...) }
	many := make([]at.Entry, 0, 10_001)
	for i := range 10_001 {
		many = append(many, at.Entry{Name: fmt.Sprintf("demo/f%05d.txt", i)})
	}
	return []struct {
		name    string
		entries []at.Entry
		entry   string
		kind    error
		tarOnly bool
		zipOnly bool
	}{
		{name: "dotdot", entries: with(at.Entry{Name: "../evil.sh", Body: "x"}), entry: "../evil.sh", kind: archive.ErrUnsafeName},
		{name: "dotdot inside", entries: with(at.Entry{Name: "demo/../../evil.sh", Body: "x"}), entry: "demo/../../evil.sh", kind: archive.ErrUnsafeName},
		{name: "absolute", entries: with(at.Entry{Name: "/etc/evil", Body: "x"}), entry: "/etc/evil", kind: archive.ErrUnsafeName},
		{name: "backslash traversal", entries: with(at.Entry{Name: "demo\\..\\..\\evil.sh", Body: "x"}), entry: "demo\\..\\..\\evil.sh", kind: archive.ErrUnsafeName},
		{name: "backslash absolute", entries: with(at.Entry{Name: "\\evil.sh", Body: "x"}), entry: "\\evil.sh", kind: archive.ErrUnsafeName},
		{name: "drive letter", entries: with(at.Entry{Name: "C:/Windows/evil.dll", Body: "x"}), entry: "C:/Windows/evil.dll", kind: archive.ErrUnsafeName},
		{name: "NUL", entries: with(at.Entry{Name: "demo/a\x00b", Body: "x"}), entry: "demo/a\x00b", kind: archive.ErrUnsafeName, zipOnly: true},
		{name: "symlink out", entries: with(at.Entry{Name: "demo/passwd", Kind: at.Symlink, Link: "../../../etc/passwd"}), entry: "demo/passwd", kind: archive.ErrLinkOutside},
		{name: "symlink absolute", entries: with(at.Entry{Name: "demo/passwd", Kind: at.Symlink, Link: "/etc/passwd"}), entry: "demo/passwd", kind: archive.ErrLinkOutside},
		{name: "symlink chain out", entries: with(
			at.Entry{Name: "demo/here", Kind: at.Symlink, Link: "."},
			at.Entry{Name: "demo/up", Kind: at.Symlink, Link: "here/../../.."}), entry: "demo/up", kind: archive.ErrLinkOutside},
		{name: "symlink via dir link", entries: with(
			at.Entry{Name: "dot", Kind: at.Symlink, Link: "."},
			at.Entry{Name: "demo/esc", Kind: at.Symlink, Link: "../dot/.."}), entry: "demo/esc", kind: archive.ErrLinkOutside},
		{name: "hardlink out", entries: with(at.Entry{Name: "demo/shadow", Kind: at.Hardlink, Link: "/etc/shadow"}), entry: "demo/shadow", kind: archive.ErrLinkOutside, tarOnly: true},
		{name: "hardlink dotdot", entries: with(at.Entry{Name: "demo/shadow", Kind: at.Hardlink, Link: "../../etc/shadow"}), entry: "demo/shadow", kind: archive.ErrLinkOutside, tarOnly: true},
		{name: "char device", entries: with(at.Entry{Name: "demo/null", Kind: at.CharDevice}), entry: "demo/null", kind: archive.ErrSpecialFile},
		{name: "block device", entries: with(at.Entry{Name: "demo/sda", Kind: at.BlockDevice}), entry: "demo/sda", kind: archive.ErrSpecialFile},
		{name: "fifo", entries: with(at.Entry{Name: "demo/pipe", Kind: at.FIFO}), entry: "demo/pipe", kind: archive.ErrSpecialFile},
		{name: "duplicate", entries: with(at.Entry{Name: "demo/SKILL.md", Body: "again"}), entry: "demo/SKILL.md", kind: archive.ErrDuplicate},
		{name: "case-only duplicate", entries: with(at.Entry{Name: "demo/skill.MD", Body: "again"}), entry: "demo/skill.MD", kind: archive.ErrDuplicate},
		{name: "case-only folder", entries: with(at.Entry{Name: "Demo/x.md", Body: "x"}), entry: "Demo/x.md", kind: archive.ErrDuplicate},
		{name: "file then folder", entries: with(at.Entry{Name: "demo/SKILL.md/x", Body: "x"}), entry: "demo/SKILL.md/x", kind: archive.ErrDuplicate},
		{name: "10001 entries", entries: many, entry: "demo/f10000.txt", kind: archive.ErrLimit},
		{name: "1 GiB of zeros", entries: with(at.Entry{Name: "demo/zeros.bin", Zeros: 1 << 30}), entry: "demo/zeros.bin", kind: archive.ErrLimit},
	}
}

func TestWalkRefusesHostileArchives(t *testing.T) {
	for _, b := range builders {
		for _, tc := range hostile() {
			if tc.tarOnly && b.name == "zip" || tc.zipOnly && b.name != "zip" {
				continue
			}
			t.Run(b.name+"/"+tc.name, func(t *testing.T) {
				_, _, err := walkBytes(t, b.build(tc.entries), archive.Options{})
				require.Error(t, err)
				assert.ErrorIs(t, err, tc.kind)
				var ee *archive.EntryError
				require.ErrorAs(t, err, &ee, "the error names the entry: %v", err)
				assert.Equal(t, tc.entry, ee.Entry)
				assert.Contains(t, err.Error(), fmt.Sprintf("%q", tc.entry))
			})
		}
	}
}

func TestSetuid(t *testing.T) {
	entries := append(at.Skill("demo", "demo"), at.Entry{Name: "demo/scripts/su", Body: "x", Mode: fs.ModeSetuid | 0o755})
	for _, b := range builders {
		t.Run(b.name, func(t *testing.T) {
			data := b.build(entries)
			got, _, err := walkBytes(t, data, archive.Options{})
			require.NoError(t, err, "dropped by default")
			for _, s := range got {
				if s.Name == "demo/scripts/su" {
					assert.Equal(t, fs.FileMode(0o755), s.Mode)
				}
			}
			_, _, err = walkBytes(t, data, archive.Options{RefuseSetuid: true})
			assert.ErrorIs(t, err, archive.ErrSetuid)
			var ee *archive.EntryError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, "demo/scripts/su", ee.Entry)
		})
	}
}

func TestLimitsCanBeRaisedAndLowered(t *testing.T) {
	entries := append(at.Skill("demo", "demo"), at.Entry{Name: "demo/big.bin", Zeros: 3 << 20})
	for _, b := range builders {
		t.Run(b.name, func(t *testing.T) {
			data := b.build(entries)
			_, _, err := walkBytes(t, data, archive.Options{})
			require.NoError(t, err)
			_, _, err = walkBytes(t, data, archive.Options{Limits: archive.Limits{MaxEntryBytes: 1 << 20}})
			assert.ErrorIs(t, err, archive.ErrLimit)
			assert.ErrorContains(t, err, "demo/big.bin")
			_, _, err = walkBytes(t, data, archive.Options{Limits: archive.Limits{MaxTotalBytes: 2 << 20}})
			assert.ErrorIs(t, err, archive.ErrLimit)
			_, _, err = walkBytes(t, data, archive.Options{Limits: archive.Limits{MaxEntries: 2}})
			assert.ErrorIs(t, err, archive.ErrLimit)
			_, _, err = walkBytes(t, data, archive.Options{Limits: archive.Limits{MaxEntries: -1, MaxEntryBytes: -1, MaxTotalBytes: -1}})
			assert.NoError(t, err)
		})
	}
}

func TestNotAnArchive(t *testing.T) {
	for name, data := range map[string][]byte{
		"text":  []byte("this is not a zip file at all, just text\n"),
		"empty": {},
		"gzip of text": func() []byte {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			_, _ = zw.Write([]byte("plain text, compressed"))
			_ = zw.Close()
			return buf.Bytes()
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := walkBytes(t, data, archive.Options{})
			assert.ErrorIs(t, err, archive.ErrNotArchive)
		})
	}
}

func TestTruncated(t *testing.T) {
	entries := append(at.Skill("demo", "demo"), at.Entry{Name: "demo/data.txt", Body: string(bytes.Repeat([]byte("abcdefgh"), 20_000))})
	for _, b := range builders {
		t.Run(b.name, func(t *testing.T) {
			data := b.build(entries)
			cut := data[:len(data)*2/3]
			_, _, err := walkBytes(t, cut, archive.Options{})
			require.Error(t, err)
			if b.name == "zip" {
				// A zip is read from its end: a cut one is no archive at all.
				assert.True(t, errors.Is(err, archive.ErrCorrupt) || errors.Is(err, archive.ErrNotArchive), "%v", err)
				return
			}
			assert.ErrorIs(t, err, archive.ErrCorrupt)
			var ee *archive.EntryError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, "demo/data.txt", ee.Entry)
		})
	}
}

func TestNormalizeName(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"a/b/c.md", "a/b/c.md", ""},
		{"./a//b/", "a/b", ""},
		{"a\\b", "a/b", ""},
		{".", "", ""},
		{"../x", "", "climbs out"},
		{"a/../b", "", "climbs out"},
		{"/x", "", "absolute"},
		{"\\\\server\\share", "", "absolute"},
		{"c:x", "", "drive letter"},
		{"a/b:c", "", "colon"},
		{"a\x00", "", "NUL"},
	} {
		got, err := archive.NormalizeName(tc.in)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestIdentifyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "skill.txt")
	require.NoError(t, os.WriteFile(p, at.Zip(at.Skill("", "x")), 0o644))
	f, err := archive.IdentifyFile(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, archive.FormatZip, f, "identified by content, not by name")
	p2 := filepath.Join(dir, "fake.zip")
	require.NoError(t, os.WriteFile(p2, []byte("plain text"), 0o644))
	_, err = archive.IdentifyFile(context.Background(), p2)
	assert.ErrorIs(t, err, archive.ErrNotArchive)
}

// Attack 10: entries that are skipped on purpose (__MACOSX/, .DS_Store)
// were not counted by the size limits, so an archive declaring tens of GiB
// there inflated in full. They count like every other entry.
func TestSkippedEntriesCountAgainstLimits(t *testing.T) {
	entries := append(at.Skill("demo", "demo"),
		at.Entry{Name: "__MACOSX/demo/._big", Zeros: 3 << 20},
		at.Entry{Name: "demo/.DS_Store", Zeros: 2 << 20})
	for _, b := range builders {
		t.Run(b.name, func(t *testing.T) {
			data := b.build(entries)
			_, _, err := walkBytes(t, data, archive.Options{Limits: archive.Limits{MaxEntryBytes: 1 << 20}})
			assert.ErrorIs(t, err, archive.ErrLimit)
			assert.ErrorContains(t, err, "__MACOSX/demo/._big")
			_, _, err = walkBytes(t, data, archive.Options{Limits: archive.Limits{MaxTotalBytes: 4 << 20}})
			assert.ErrorIs(t, err, archive.ErrLimit)
			_, _, err = walkBytes(t, data, archive.Options{})
			assert.NoError(t, err, "within the limits, they are skipped as before")
		})
	}
}
