package install_test

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive"
	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
)

// TestHostileArchivesAreRefused installs each hostile archive over a good
// installed skill of the same name: each is refused with an error naming
// the entry, nothing appears outside the target root, and the installed
// skill and the lock file stay byte for byte as they were.
func TestHostileArchivesAreRefused(t *testing.T) {
	bad := func(extra ...at.Entry) []at.Entry {
		return append(goodSkill("demo", "hostile\n"), extra...)
	}
	many := make([]at.Entry, 0, 10_001)
	many = append(many, goodSkill("demo", "many\n")...)
	for i := len(many); i < 10_001; i++ {
		many = append(many, at.Entry{Name: fmt.Sprintf("demo/f%05d.txt", i)})
	}
	type hostileCase struct {
		name    string
		entries []at.Entry
		entry   string // the entry the error must name ("" when there is none)
		kind    error
		only    string // "zip" or "tar.gz" when the case exists in one format only
	}
	cases := []hostileCase{
		{name: "dotdot", entries: bad(at.Entry{Name: "../evil.sh", Body: "x"}), entry: "../evil.sh", kind: archive.ErrUnsafeName},
		{name: "dotdot deep", entries: bad(at.Entry{Name: "demo/../../../evil.sh", Body: "x"}), entry: "demo/../../../evil.sh", kind: archive.ErrUnsafeName},
		{name: "absolute", entries: bad(at.Entry{Name: "/tmp/evil.sh", Body: "x"}), entry: "/tmp/evil.sh", kind: archive.ErrUnsafeName},
		{name: "backslash traversal", entries: bad(at.Entry{Name: "demo\\..\\..\\evil.sh", Body: "x"}), entry: "demo\\..\\..\\evil.sh", kind: archive.ErrUnsafeName},
		{name: "drive letter", entries: bad(at.Entry{Name: "C:\\evil.sh", Body: "x"}), entry: "C:\\evil.sh", kind: archive.ErrUnsafeName},
		{name: "symlink leaving the skill", entries: bad(at.Entry{Name: "demo/passwd", Kind: at.Symlink, Link: "../../etc/passwd"}), entry: "demo/passwd", kind: archive.ErrLinkOutside},
		{name: "symlink to another folder of the archive", entries: append(bad(at.Entry{Name: "demo/peek", Kind: at.Symlink, Link: "../other/secret"}), at.Entry{Name: "other/secret", Body: "s"}), entry: "demo/peek", kind: archive.ErrLinkOutside},
		{name: "hardlink leaving the skill", entries: bad(at.Entry{Name: "demo/shadow", Kind: at.Hardlink, Link: "../etc/shadow"}), entry: "demo/shadow", kind: archive.ErrLinkOutside, only: "tar.gz"},
		{name: "hardlink to another folder of the archive", entries: append([]at.Entry{{Name: "other/secret", Body: "s"}}, bad(at.Entry{Name: "demo/secret", Kind: at.Hardlink, Link: "other/secret"})...), entry: "demo/secret", kind: archive.ErrLinkOutside, only: "tar.gz"},
		{name: "device", entries: bad(at.Entry{Name: "demo/null", Kind: at.CharDevice}), entry: "demo/null", kind: archive.ErrSpecialFile},
		{name: "fifo", entries: bad(at.Entry{Name: "demo/pipe", Kind: at.FIFO}), entry: "demo/pipe", kind: archive.ErrSpecialFile},
		{name: "setuid", entries: bad(at.Entry{Name: "demo/scripts/su", Body: "x", Mode: fs.ModeSetuid | 0o755}), entry: "demo/scripts/su", kind: archive.ErrSetuid},
		{name: "duplicate", entries: bad(at.Entry{Name: "demo/SKILL.md", Body: "---\nname: demo\ndescription: evil\n---\n"}), entry: "demo/SKILL.md", kind: archive.ErrDuplicate},
		{name: "case-only duplicate", entries: bad(at.Entry{Name: "demo/Skill.md", Body: "x"}), entry: "demo/Skill.md", kind: archive.ErrDuplicate},
		{name: "10,001 entries", entries: many, entry: "demo/f10000.txt", kind: archive.ErrLimit},
		{name: "1 GiB of zeros", entries: bad(at.Entry{Name: "demo/zeros.bin", Zeros: 1 << 30}), entry: "demo/zeros.bin", kind: archive.ErrLimit},
		{name: "no SKILL.md", entries: []at.Entry{{Name: "demo/README.md", Body: "x"}}, kind: install.ErrNoSkill},
	}
	formats := []struct {
		name  string
		build func([]at.Entry) []byte
	}{{"zip", at.Zip}, {"tar.gz", at.TarGz}}

	for _, f := range formats {
		for _, tc := range cases {
			if tc.only != "" && tc.only != f.name {
				continue
			}
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				checkRefused(t, f.build(tc.entries), "hostile."+f.name, tc.entry, tc.kind)
			})
		}
		t.Run(f.name+"/truncated", func(t *testing.T) {
			entries := bad(at.Entry{Name: "demo/data.txt", Body: string(make([]byte, 300_000))})
			entries[len(entries)-1].Body = fmt.Sprintf("%0300000d", 7)
			data := f.build(entries)
			if f.name == "zip" {
				checkRefused(t, data[:len(data)-30], "cut.zip", "", archive.ErrCorrupt)
				return
			}
			checkRefused(t, data[:len(data)/2], "cut.tar.gz", "demo/data.txt", archive.ErrCorrupt)
		})
	}
	t.Run("not an archive, named .zip", func(t *testing.T) {
		checkRefused(t, []byte("#!/bin/sh\nrm -rf ~\n"), "evil.zip", "", archive.ErrNotArchive)
	})
}

func checkRefused(t *testing.T, data []byte, file, entry string, kind error) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "home", "skills")
	good := writeArchive(t, base, "good.zip", at.Zip(goodSkill("demo", "good\n")))
	_, err := run(t, install.Options{Sources: []string{good}, Roots: []string{root}})
	require.NoError(t, err)
	// The hostile archive comes from the same location so that only its content can refuse it.
	src := writeArchive(t, base, "good.zip", data)
	_ = file
	before := snapshot(t, base)
	delete(before, "good.zip")

	_, err = run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.Error(t, err)
	assert.ErrorIs(t, err, kind)
	if entry != "" {
		var ee *archive.EntryError
		require.ErrorAs(t, err, &ee, "the error names the entry: %v", err)
		assert.Equal(t, entry, ee.Entry)
		assert.Contains(t, err.Error(), fmt.Sprintf("%q", entry))
	}
	after := snapshot(t, base)
	delete(after, "good.zip")
	assert.Equal(t, before, after, "nothing changed outside the staging folder, which is gone")
	assert.Empty(t, stagingLeft(t, root))
	requireLockMatchesDisk(t, root)
}
