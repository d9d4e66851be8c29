package validate

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/skill"
)

const okSkill = "---\nname: %s\ndescription: Does things for tests. Use when testing.\n---\n# Body\n"

func writeFile(t *testing.T, p, content string, mode fs.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
}

func skillMD(name string) string { return strings.Replace(okSkill, "%s", name, 1) }

func run(t *testing.T, profile string, paths ...string) *Report {
	t.Helper()
	rep, err := (&Validator{Options: Options{Profile: profile}}).Run(context.Background(), paths)
	require.NoError(t, err)
	return rep
}

func TestBothSkillFilesReadsUppercase(t *testing.T) { // case 13
	dir := filepath.Join(t.TempDir(), "my-skill")
	writeFile(t, filepath.Join(dir, "SKILL.md"), skillMD("my-skill"), 0o644)
	writeFile(t, filepath.Join(dir, "skill.md"), "not frontmatter at all\n", 0o644)
	if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
		t.Skip("case-insensitive file system")
	}
	b, _ := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if !strings.HasPrefix(string(b), "---") {
		t.Skip("case-insensitive file system: skill.md replaced SKILL.md")
	}
	for _, p := range Profiles {
		res := Dir(dir, Options{Profile: p})
		assert.Empty(t, res.Findings, p)
		assert.Equal(t, filepath.Join(dir, "SKILL.md"), res.File)
	}
}

func TestPaths(t *testing.T) { // case 14
	_, err := (&Validator{}).Run(context.Background(), []string{filepath.Join(t.TempDir(), "nope")})
	require.ErrorIs(t, err, skill.ErrNotFound)

	rep := run(t, ProfileSpec, filepath.Join("testdata", "14-not-a-skill", "notes.txt"))
	require.Len(t, rep.Results, 1)
	assert.Equal(t, []string{"E:not-a-skill"}, ruleIDs(rep.Results[0]))

	rep = run(t, ProfileSpec, filepath.Join("testdata", "01-valid", "my-skill", "SKILL.md"))
	require.Len(t, rep.Results, 1)
	assert.Empty(t, rep.Results[0].Findings)
	assert.Equal(t, "my-skill", rep.Results[0].Name)
	assert.Equal(t, filepath.Join("testdata", "01-valid", "my-skill", "SKILL.md"), rep.Results[0].File)
}

func TestDotIsResolved(t *testing.T) { // case 15
	t.Chdir(filepath.Join("testdata", "01-valid", "my-skill"))
	for _, p := range Profiles {
		assert.Empty(t, Dir(".", Options{Profile: p}).Findings, p)
		rep := run(t, p, ".")
		require.Len(t, rep.Results, 1)
		assert.Empty(t, rep.Results[0].Findings, p)
		assert.Equal(t, "SKILL.md", rep.Results[0].File)
	}
}

func TestScalarsStayText(t *testing.T) { // cases 22, 23
	doc, err := skill.Parse([]byte("---\nname: 123\nmetadata:\n  version: 1.0\n---\n"), "SKILL.md")
	require.NoError(t, err)
	assert.Equal(t, "123", doc.Field("name").Value)
	assert.Equal(t, "1.0", doc.Field("metadata").Content[1].Value)
}

func TestFindingPositions(t *testing.T) {
	res := Dir(filepath.Join("testdata", "53-many-findings", "other-folder"), Options{Profile: ProfileSpec})
	require.Len(t, res.Findings, 6)
	for _, f := range res.Findings {
		assert.Equal(t, filepath.Join("testdata", "53-many-findings", "other-folder", "SKILL.md"), f.File)
		assert.NotEmpty(t, f.Hint, f.Rule)
		if f.Rule == "unknown-field" {
			assert.Equal(t, 4, f.Line)
			assert.Equal(t, 1, f.Column)
			assert.Contains(t, f.Message, "foo, version")
		} else {
			assert.Equal(t, 2, f.Line, f.Rule)
			assert.Equal(t, 7, f.Column, f.Rule)
		}
	}

	res = Dir(filepath.Join("testdata", "rule-reference-missing", "my-skill"), Options{})
	var lines []int
	for _, f := range res.Findings {
		lines = append(lines, f.Line)
	}
	assert.Equal(t, []int{8, 10, 18}, lines)
	assert.Equal(t, 56, res.Findings[0].Column)
	assert.Contains(t, res.Findings[0].Message, "references/FORMAT.md")

	res = Dir(filepath.Join("testdata", "16-unquoted-colon", "my-skill"), Options{Profile: ProfileSpec})
	require.Len(t, res.Findings, 1)
	assert.Equal(t, 3, res.Findings[0].Line)
}

func TestInnerDashesFollowTheReference(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-skill")
	// The reference ends the frontmatter at "a---": the name after it is not read.
	writeFile(t, filepath.Join(dir, "SKILL.md"), "---\ndescription: a---b\nname: my-skill\n---\nBody\n", 0o644)
	assert.Equal(t, []string{"E:name-missing", "W:frontmatter-inner-dashes"}, ruleIDs(Dir(dir, Options{Profile: ProfileSpec})))
	assert.Equal(t, []string{"W:frontmatter-inner-dashes"}, ruleIDs(Dir(dir, Options{})))
}

func TestHostileInput(t *testing.T) {
	base := t.TempDir()
	big := filepath.Join(base, "big")
	writeFile(t, filepath.Join(big, "SKILL.md"), skillMD("big")+strings.Repeat("x", 3<<20), 0o644)
	assert.Equal(t, []string{"E:file-too-large"}, ruleIDs(Dir(big, Options{})))

	bomb := filepath.Join(base, "bomb")
	var b strings.Builder
	b.WriteString("---\nname: bomb\ndescription: alias bomb\nmetadata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("  a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\n")
	writeFile(t, filepath.Join(bomb, "SKILL.md"), b.String(), 0o644)
	for _, p := range Profiles {
		res := Dir(bomb, Options{Profile: p})
		assert.NotEmpty(t, res.Findings, p)
	}
	assert.True(t, Dir(bomb, Options{Profile: ProfileSpec}).HasErrors())
}

func TestTreeSkipsGitAndNodeModules(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a", "SKILL.md"), skillMD("a"), 0o644)
	writeFile(t, filepath.Join(root, "group", "b", "SKILL.md"), skillMD("b"), 0o644)
	writeFile(t, filepath.Join(root, ".claude", "skills", "c", "SKILL.md"), skillMD("c"), 0o644)
	writeFile(t, filepath.Join(root, ".git", "d", "SKILL.md"), skillMD("d"), 0o644)
	writeFile(t, filepath.Join(root, "node_modules", "e", "SKILL.md"), skillMD("e"), 0o644)
	writeFile(t, filepath.Join(root, "empty", "README.md"), "nothing\n", 0o644)
	rep := run(t, "", root)
	var names []string
	for _, r := range rep.Results {
		names = append(names, r.Name)
		assert.Empty(t, r.Findings)
	}
	assert.Equal(t, []string{"c", "a", "b"}, names) // sorted by path: .claude first
	assert.Equal(t, Summary{Skills: 3}, rep.Summary(false))

	rep = run(t, "", filepath.Join(root, "empty"))
	require.Len(t, rep.Results, 1)
	assert.Equal(t, []string{"E:skill-md-missing"}, ruleIDs(rep.Results[0]))
}

func TestTreeFollowsLinksWithoutLooping(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "real", "x", "SKILL.md"), skillMD("x"), 0o644)
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "real", "loop")); err != nil {
		t.Skip("symbolic links unavailable:", err)
	}
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "x"), filepath.Join(root, "linked")))
	rep := run(t, "", root)
	var dirs []string
	for _, r := range rep.Results {
		dirs = append(dirs, filepath.Base(r.Dir))
	}
	// real/x once: the link to it is the same skill, and the loop is not followed
	assert.Equal(t, []string{"x"}, dirs)
	assert.Empty(t, rep.Skipped)
}

// zipOf builds a zip archive of name→content (a name ending in / is a folder).
func zipOf(t *testing.T, files map[string]string, modes map[string]fs.FileMode) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		mode := fs.FileMode(0o644)
		if m, ok := modes[name]; ok {
			mode = m
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, err = w.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func tgzOf(t *testing.T, entries []*tar.Header, contents map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		c := contents[h.Name]
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(c))
		}
		require.NoError(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			_, err := tw.Write([]byte(c))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

func TestArchives(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.skill")
	require.NoError(t, os.WriteFile(good, zipOf(t, map[string]string{
		"pdf/SKILL.md":            skillMD("pdf") + "See [the guide](references/GUIDE.md) and [gone](references/GONE.md).\n",
		"pdf/references/GUIDE.md": "guide",
		"pdf/scripts/run.sh":      "#!/bin/sh\necho hi\n",
		"__MACOSX/pdf/._SKILL.md": "junk",
	}, nil), 0o644))
	rep := run(t, "", good)
	require.Len(t, rep.Results, 1)
	r := rep.Results[0]
	assert.Equal(t, good+"!/pdf", r.Dir)
	assert.Equal(t, good+"!/pdf/SKILL.md", r.File)
	assert.Equal(t, []string{"W:reference-missing", "W:script-not-executable"}, ruleIDs(r))

	// The folder name in the archive is checked against the name.
	wrong := filepath.Join(dir, "wrong.zip")
	require.NoError(t, os.WriteFile(wrong, zipOf(t, map[string]string{"template/SKILL.md": skillMD("template-skill")}, nil), 0o644))
	assert.Equal(t, []string{"E:name-dir-mismatch"}, ruleIDs(run(t, ProfileSpec, wrong).Results[0]))

	// SKILL.md at the top of the archive: no folder name to compare.
	top := filepath.Join(dir, "top.tgz")
	require.NoError(t, os.WriteFile(top, tgzOf(t, []*tar.Header{
		{Name: "SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "scripts/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "scripts/run.sh", Typeflag: tar.TypeReg, Mode: 0o755},
	}, map[string]string{"SKILL.md": skillMD("top") + "mode: x\n", "scripts/run.sh": "#!/bin/sh\n"}), 0o644))
	rep = run(t, "", top)
	require.Len(t, rep.Results, 1)
	assert.Empty(t, rep.Results[0].Findings)

	// Several skills in one archive.
	multi := filepath.Join(dir, "multi.tar.gz")
	require.NoError(t, os.WriteFile(multi, tgzOf(t, []*tar.Header{
		{Name: "skills/a/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "skills/b/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644},
	}, map[string]string{"skills/a/SKILL.md": skillMD("a"), "skills/b/SKILL.md": skillMD("wrong")}), 0o644))
	rep = run(t, "", multi)
	require.Len(t, rep.Results, 2)
	assert.Empty(t, rep.Results[0].Findings)
	assert.Equal(t, []string{"E:name-dir-mismatch"}, ruleIDs(rep.Results[1]))

	empty := filepath.Join(dir, "empty.zip")
	require.NoError(t, os.WriteFile(empty, zipOf(t, map[string]string{"README.md": "x"}, nil), 0o644))
	assert.Equal(t, []string{"E:skill-md-missing"}, ruleIDs(run(t, "", empty).Results[0]))
}

func TestUnsafeArchives(t *testing.T) {
	dir := t.TempDir()
	cases := map[string][]byte{
		"dotdot.zip":    zipOf(t, map[string]string{"x/SKILL.md": skillMD("x"), "../evil.txt": "evil"}, nil),
		"backslash.zip": zipOf(t, map[string]string{"x/SKILL.md": skillMD("x"), "x\\..\\..\\evil.txt": "evil"}, nil),
		"absolute.tgz": tgzOf(t, []*tar.Header{{Name: "/etc/evil", Typeflag: tar.TypeReg, Mode: 0o644}},
			map[string]string{"/etc/evil": "evil"}),
		"symlink.tgz": tgzOf(t, []*tar.Header{
			{Name: "x/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644},
			{Name: "x/link", Typeflag: tar.TypeSymlink, Linkname: "../../etc/passwd", Mode: 0o777},
		}, map[string]string{"x/SKILL.md": skillMD("x")}),
		"fifo.tgz": tgzOf(t, []*tar.Header{{Name: "x/pipe", Typeflag: tar.TypeFifo, Mode: 0o644}}, nil),
		"rar.txt":  []byte("Rar!\x1a\x07\x01\x00 not really"),
	}
	for name, data := range cases {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	before := listTree(t, dir)
	for name := range cases {
		rep := run(t, "", filepath.Join(dir, name))
		require.Len(t, rep.Results, 1, name)
		ids := ruleIDs(rep.Results[0])
		if name == "rar.txt" {
			assert.Contains(t, []string{"E:archive-unsafe", "E:not-a-skill"}, ids[0], name)
			continue
		}
		assert.Equal(t, []string{"E:archive-unsafe"}, ids, name)
		assert.Contains(t, rep.Results[0].Findings[0].Message, "nothing was extracted", name)
	}
	assert.Equal(t, before, listTree(t, dir), "no file was written")
}

func TestArchiveLimits(t *testing.T) {
	dir := t.TempDir()
	// A zip bomb: one entry that claims to (and does) unpack to more than the
	// per-entry limit. Only its header is read.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "x/SKILL.md", Method: zip.Deflate})
	require.NoError(t, err)
	_, _ = w.Write([]byte(skillMD("x")))
	w, err = zw.CreateHeader(&zip.FileHeader{Name: "x/zeros.bin", Method: zip.Deflate})
	require.NoError(t, err)
	chunk := make([]byte, 1<<20)
	for i := 0; i < (archive.DefaultMaxEntryBytes>>20)+1; i++ {
		_, _ = w.Write(chunk)
	}
	require.NoError(t, zw.Close())
	bomb := filepath.Join(dir, "bomb.zip")
	require.NoError(t, os.WriteFile(bomb, buf.Bytes(), 0o644))
	rep := run(t, "", bomb)
	assert.Equal(t, []string{"E:archive-unsafe"}, ruleIDs(rep.Results[0]))
	assert.Contains(t, rep.Results[0].Findings[0].Message, `"x/zeros.bin"`)
	assert.Contains(t, rep.Results[0].Findings[0].Message, "per-entry limit")

	// Too many entries.
	files := map[string]string{}
	for i := 0; i <= archive.DefaultMaxEntries; i++ {
		files["x/f/"+strconv.Itoa(i)] = ""
	}
	many := filepath.Join(dir, "many.zip")
	require.NoError(t, os.WriteFile(many, zipOf(t, files, nil), 0o644))
	rep = run(t, "", many)
	assert.Equal(t, []string{"E:archive-unsafe"}, ruleIDs(rep.Results[0]))
	assert.Contains(t, rep.Results[0].Findings[0].Message, "more than 10000 entries")
}

func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		out = append(out, p)
		return err
	}))
	return out
}

func TestRulesAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		assert.False(t, seen[r.ID], "duplicate rule %s", r.ID)
		seen[r.ID] = true
		assert.NotEmpty(t, r.Summary, r.ID)
		assert.NotEmpty(t, r.Hint, r.ID)
		for _, p := range Profiles {
			assert.Contains(t, []string{Error, Warning, Info, Off}, r.Severity.For(p), r.ID)
		}
	}
	// Every rule SPEC §5 names exists.
	for _, id := range strings.Fields(`frontmatter-missing frontmatter-unclosed yaml-invalid yaml-unquoted-colon
		yaml-duplicate-key bom name-missing name-format name-too-long name-dir-mismatch name-not-ascii
		description-missing description-too-long description-xml-tags compatibility-too-long metadata-not-map
		metadata-value-not-string allowed-tools-list unknown-field mode-invalid timeout-invalid entrypoint-missing
		script-not-executable reference-missing body-too-long body-too-many-tokens skill-md-lowercase`) {
		assert.NotNil(t, RuleByID(id), id)
	}
	// Rules reported by the skill loader are known here.
	for _, id := range []string{"file-too-large", "binary-file", "not-utf8", "frontmatter-not-mapping"} {
		assert.NotNil(t, RuleByID(id), id)
	}
}

func TestBodyLinks(t *testing.T) {
	body := "a [x](one.md) b ![y](<two words.png> \"t\") [z](three.md(1))\n" +
		"`[no](code.md)` [w](https://x.y/z.md)\n" +
		"    [indented](code.md)\n" +
		"[def]: four.md \"title\"\n"
	var got []string
	for _, l := range BodyLinks(body) {
		got = append(got, l.Target)
	}
	assert.Equal(t, []string{"one.md", "two words.png", "three.md(1)", "https://x.y/z.md", "four.md"}, got)

	for in, want := range map[string]string{"a.md#x": "a.md", "a%20b.md": "a b.md", "./a.md?q": "./a.md"} {
		got, ok := localTarget(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got)
	}
	for _, in := range []string{"#top", "/abs.md", "mailto:x@y", "https://x", "{{input}}", "C:/x"} {
		_, ok := localTarget(in)
		assert.False(t, ok, in)
	}
}

func TestDocsDescribeEveryRule(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "validate.md"))
	require.NoError(t, err)
	doc := string(b)
	for _, r := range Rules {
		assert.Contains(t, doc, "#### "+r.ID+"\n", "docs/validate.md has a section for %s", r.ID)
		lv := r.Severity
		row := "| [`" + r.ID + "`](#" + r.ID + ") | "
		assert.Contains(t, doc, row+docLevel(lv.Default)+" | "+docLevel(lv.Spec)+" | "+docLevel(lv.ClaudeCode)+" | "+docLevel(lv.AnthropicAPI)+" |",
			"docs/validate.md has the severities of %s", r.ID)
	}
}

func docLevel(s string) string {
	if s == Off {
		return "–"
	}
	return s
}

func TestTreeSkipsWhatGitIgnores(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	writeFile(t, filepath.Join(repo, ".gitignore"), "build/\n", 0o644)
	writeFile(t, filepath.Join(repo, "skills", "kept", "SKILL.md"), skillMD("kept"), 0o644)
	writeFile(t, filepath.Join(repo, "build", "copy", "SKILL.md"), "broken copy\n", 0o644)
	writeFile(t, filepath.Join(repo, "skills", "build", "SKILL.md"), "broken copy\n", 0o644)
	rep := run(t, "", repo)
	require.Len(t, rep.Results, 1)
	assert.Equal(t, "kept", filepath.Base(rep.Results[0].Dir))
	assert.False(t, rep.Failed(false))
}

// Attack 10: validate passed archives that install refuses. It now reads
// them with install's checks: a symlink that stays in the archive but
// leaves its skill folder (here the entrypoint), and a zip whose sizes lie.
func TestArchivesCheckedAsInstallChecksThem(t *testing.T) {
	dir := t.TempDir()
	link := tgzOf(t, []*tar.Header{
		{Name: "a/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "b/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "b/secret.txt", Typeflag: tar.TypeReg, Mode: 0o644},
		{Name: "a/scripts", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "a/scripts/run.sh", Typeflag: tar.TypeSymlink, Linkname: "../../b/secret.txt", Mode: 0o777},
	}, map[string]string{"a/SKILL.md": "---\nname: a\ndescription: A.\nentrypoint: scripts/run.sh\n---\nA.\n",
		"b/SKILL.md": skillMD("b"), "b/secret.txt": "secret"})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "link.tgz"), link, 0o644))

	var comp bytes.Buffer
	content := bytes.Repeat([]byte("a"), 4096)
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	_, _ = fw.Write(content)
	require.NoError(t, fw.Close())
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("x/SKILL.md")
	require.NoError(t, err)
	_, _ = w.Write([]byte(skillMD("x")))
	raw, err := zw.CreateRaw(&zip.FileHeader{Name: "x/data.txt", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(content),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: 16})
	require.NoError(t, err)
	_, _ = raw.Write(comp.Bytes())
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lying.zip"), buf.Bytes(), 0o644))

	for name, want := range map[string]string{"link.tgz": "leaves the skill folder a", "lying.zip": "x/data.txt"} {
		rep := run(t, "", filepath.Join(dir, name))
		require.NotEmpty(t, rep.Results, name)
		assert.Equal(t, []string{"E:archive-unsafe"}, ruleIDs(rep.Results[0]), name)
		assert.Contains(t, rep.Results[0].Findings[0].Message, want, name)
	}
}

// Attack 10 (folders): validate passed a skill whose entrypoint is a link
// out of the skill folder, which install refuses. It reports every link
// that leaves the folder or leads nowhere, and none that stays inside.
func TestLinksOutsideTheSkill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "linked")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "references"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"),
		[]byte("---\nname: linked\ndescription: Links.\nentrypoint: scripts/run.sh\n---\nBody.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "references", "real.md"), []byte("x"), 0o644))
	outside := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("x"), 0o644))
	if err := os.Symlink(outside, filepath.Join(dir, "scripts", "run.sh")); err != nil {
		t.Skipf("symbolic links are not available here: %v", err)
	}
	require.NoError(t, os.Symlink("../nowhere", filepath.Join(dir, "scripts", "gone")))
	require.NoError(t, os.Symlink("../references/real.md", filepath.Join(dir, "scripts", "inside.md")))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755))
	require.NoError(t, os.Symlink("/etc", filepath.Join(dir, "node_modules", "left-out")))
	outside, _ = filepath.EvalSymlinks(outside)
	rep := run(t, "", dir)
	require.Len(t, rep.Results, 1)
	assert.Equal(t, []string{"E:link-outside", "E:link-outside"}, ruleIDs(rep.Results[0]))
	var msgs []string
	for _, f := range rep.Results[0].Findings {
		msgs = append(msgs, f.Message)
	}
	assert.Contains(t, strings.Join(msgs, "\n"), "scripts/run.sh is a symbolic link to "+outside)
	assert.Contains(t, strings.Join(msgs, "\n"), "scripts/gone is a symbolic link to \"../nowhere\", which does not resolve")
}

// Every hint that proposes a name proposes one that passes the name rules.
func TestHintsProposeValidNames(t *testing.T) {
	root := t.TempDir()
	cases := map[string]string{
		"toggl-automation": "Toggl Automation",
		"my_skill":         "my_skill",
		"x":                "-2chat--Automation-",
		"Caps_Folder":      "",
		"long":             strings.Repeat("Ab_", 30),
	}
	var paths []string
	for dir, name := range cases {
		md := "---\ndescription: Does things.\n---\n"
		if name != "" {
			md = "---\nname: " + name + "\ndescription: Does things.\n---\n"
		}
		writeFile(t, filepath.Join(root, dir, "SKILL.md"), md, 0o644)
		paths = append(paths, filepath.Join(root, dir))
	}
	rep := run(t, ProfileDefault, paths...)
	re := regexp.MustCompile(`(?:e\.g\. name: |e\.g\. |name: |lowercase: |rename the folder to )([^ ,()]+)`)
	n := 0
	for _, f := range rep.Findings() {
		for _, m := range re.FindAllStringSubmatch(f.Hint, -1) {
			n++
			assert.NoError(t, skill.CheckName(m[1]), "%s: hint %q proposes an invalid name", f.Rule, f.Hint)
		}
	}
	assert.Greater(t, n, 6, "the hints propose names")
	for _, f := range rep.Findings() {
		if f.Rule == "name-missing" {
			assert.Equal(t, "add name: caps-folder and rename the folder to caps-folder", f.Hint)
		}
	}
}

func TestRuleLevelsAndCounts(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a", "SKILL.md"), "---\nname: a\ndescription: Does a.\nfoo: 1\nbar: 2\n---\n", 0o644)
	writeFile(t, filepath.Join(root, "b", "SKILL.md"), "---\nname: b\ndescription: Does b.\nfoo: 1\n---\n[x](missing.md)\n", 0o644)
	rep := run(t, ProfileDefault, root)
	assert.Equal(t, []RuleCount{{"unknown-field", Warning, 2}, {"reference-missing", Warning, 1}}, rep.RuleCounts())
	v := &Validator{Options: Options{Levels: map[string]string{"unknown-field": "off", "reference-missing": Error, "name-reserved": Error}}}
	rep, err := v.Run(context.Background(), []string{root})
	require.NoError(t, err)
	assert.Equal(t, []RuleCount{{"reference-missing", Error, 1}}, rep.RuleCounts())
	assert.True(t, rep.Failed(false))
	var buf bytes.Buffer
	require.NoError(t, rep.WriteRuleCounts(&buf))
	assert.Equal(t, "\nFindings by rule:\n  1  error    reference-missing\n", buf.String())
	var sarif bytes.Buffer
	require.NoError(t, rep.WriteSARIF(&sarif, "test"))
	assert.Contains(t, sarif.String(), `"id": "unknown-field",`)
	assert.NotContains(t, sarif.String(), `"uriBaseId"`)

	assert.NoError(t, CheckLevel("unknown-field", "off"))
	assert.EqualError(t, CheckLevel("unknown-feld", "off"), `unknown rule "unknown-feld" (did you mean unknown-field?)`)
	assert.ErrorContains(t, CheckLevel("unknown-field", "high"), `not "high"`)
}

func TestIsPlaceholder(t *testing.T) {
	for _, d := range []string{"TODO: describe it", "todo", "TBD.", "FIXME - later", "  XXX write this",
		"Describe what pdf-tools does and when an agent should use it."} {
		assert.True(t, IsPlaceholder(d), d)
	}
	for _, d := range []string{"Fills template placeholders in documents.", "Todoist integration: manage tasks.",
		"TBDx", "Tracks TODO comments in code.", "Describe what a diff does."} {
		assert.False(t, IsPlaceholder(d), d)
	}
}
