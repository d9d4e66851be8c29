package install_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/archive"
	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
)

// skillFolder writes dir/rel/SKILL.md (and any extra files) for tests of
// folder sources.
func skillFolder(t *testing.T, dir, rel, skillMD string, extra map[string]string) string {
	t.Helper()
	d := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(d, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(skillMD), 0o644))
	for name, body := range extra {
		p := filepath.Join(d, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return d
}

// A skill with lint errors that agents load anyway is installed, with its
// findings as warnings; --strict refuses it.
func TestInstallPolicyIsWhatAgentsLoad(t *testing.T) {
	dir := t.TempDir()
	src := skillFolder(t, dir, "repo/toggl", "---\nname: Toggl Automation\ndescription: Automates Toggl.\n---\nBody.\n", nil)
	root := filepath.Join(dir, "root")
	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	s := res.Skills[0]
	assert.Equal(t, "Toggl Automation", s.Name)
	assert.Equal(t, "toggl-automation", s.Folder, "the folder is the name's slug")
	assert.Equal(t, filepath.Join(root, "toggl-automation"), s.Path)
	assert.FileExists(t, filepath.Join(root, "toggl-automation", "SKILL.md"))
	var rules []string
	for _, f := range s.Warnings {
		rules = append(rules, f.Rule)
	}
	assert.Contains(t, rules, "name-format", "the lint error is reported, not refused")

	_, err = run(t, install.Options{Sources: []string{src}, Roots: []string{filepath.Join(dir, "strict")}, Strict: true})
	require.ErrorIs(t, err, install.ErrInvalid)
	assert.Contains(t, err.Error(), "name-format")
	assert.NoDirExists(t, filepath.Join(dir, "strict", "toggl-automation"))
}

func TestSlug(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	skillFolder(t, repo, "a", "---\nname: my_skill\ndescription: Underscores.\n---\n", nil)
	skillFolder(t, repo, "b", "---\nname: -2chat-automation\ndescription: Leading dash.\n---\n", nil)
	skillFolder(t, repo, "c", "---\ndescription: No name: the folder names it.\n---\n", nil)
	root := filepath.Join(dir, "root")
	res, err := run(t, install.Options{Sources: []string{repo}, Roots: []string{root}})
	require.NoError(t, err)
	var folders []string
	for _, s := range res.Skills {
		folders = append(folders, s.Folder)
	}
	assert.ElementsMatch(t, []string{"my-skill", "2chat-automation", "c"}, folders)
	requireLockMatchesDisk(t, root)
}

// One broken skill stops the whole source, naming every problem;
// --skip-invalid installs the rest and reports the skipped ones.
func TestBundleAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	skillFolder(t, repo, "good", "---\nname: good\ndescription: Fine.\n---\n", nil)
	skillFolder(t, repo, "nodesc", "---\nname: nodesc\n---\nNo description.\n", nil)
	skillFolder(t, repo, "unreadable", "---\nname: [unclosed\ndescription: x\n---\n", nil)
	skillFolder(t, repo, "foo_bar", "---\nname: foo_bar\ndescription: One.\n---\n", nil)
	skillFolder(t, repo, "foo-bar", "---\nname: foo-bar\ndescription: Two.\n---\n", nil)
	root := filepath.Join(dir, "root")
	require.NoError(t, os.MkdirAll(root, 0o755))
	before := snapshot(t, root)

	_, err := run(t, install.Options{Sources: []string{repo}, Roots: []string{root}})
	var be *install.BundleError
	require.ErrorAs(t, err, &be)
	msg := err.Error()
	assert.Contains(t, msg, "4 of 5 skills of "+repo+" cannot be installed; nothing was installed")
	assert.Contains(t, msg, "nodesc: SKILL.md has no description")
	assert.Contains(t, msg, "unreadable: agents cannot load its SKILL.md")
	assert.Contains(t, msg, "foo_bar: it would be installed into the same folder foo-bar as foo-bar")
	assert.Contains(t, msg, "foo-bar: it would be installed into the same folder foo-bar as foo_bar")
	assert.Contains(t, msg, "--skip-invalid")
	assert.Equal(t, before, snapshot(t, root), "nothing was written")

	res, err := run(t, install.Options{Sources: []string{repo}, Roots: []string{root}, SkipInvalid: true})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, "good", res.Skills[0].Name)
	assert.Len(t, res.Refused, 4)
	assert.NoDirExists(t, filepath.Join(root, "nodesc"))
	requireLockMatchesDisk(t, root)

	// --skill picks past the collision.
	res, err = run(t, install.Options{Sources: []string{repo}, Roots: []string{filepath.Join(dir, "picked")}, Skills: []string{"foo_*"}})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, "foo-bar", res.Skills[0].Folder)
}

// Unsafe content is refused under every policy; --skip-invalid skips it.
func TestUnsafeSkillStillRefused(t *testing.T) {
	dir := t.TempDir()
	zip := writeArchive(t, dir, "two.zip", at.Zip([]at.Entry{
		{Name: "ok/SKILL.md", Body: "---\nname: ok\ndescription: Fine.\n---\n"},
		{Name: "evil/SKILL.md", Body: "---\nname: evil\ndescription: Peeks.\n---\n"},
		{Name: "evil/peek", Kind: at.Symlink, Link: "../ok/SKILL.md"},
	}))
	root := filepath.Join(dir, "root")
	_, err := run(t, install.Options{Sources: []string{zip}, Roots: []string{root}})
	require.ErrorIs(t, err, archive.ErrLinkOutside)
	assert.Contains(t, err.Error(), `entry "evil/peek"`)
	assert.NoDirExists(t, filepath.Join(root, "ok"))

	res, err := run(t, install.Options{Sources: []string{zip}, Roots: []string{root}, SkipInvalid: true})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, "ok", res.Skills[0].Name)
	require.Len(t, res.Refused, 1)
	assert.Equal(t, "evil", res.Refused[0].Skill)
	assert.NoDirExists(t, filepath.Join(root, "evil"))
}

// Installing the same files again touches nothing, the lock included.
func TestUnchangedReinstall(t *testing.T) {
	dir := t.TempDir()
	src := writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "x\n")))
	root := filepath.Join(dir, "root")
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}, Now: func() time.Time { return time.Unix(1e9, 0) }})
	require.NoError(t, err)
	lock := filepath.Join(root, install.LockFileName)
	old := time.Unix(1e9, 0)
	require.NoError(t, os.Chtimes(lock, old, old))
	before := snapshot(t, root)
	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.NoError(t, err)
	assert.Equal(t, install.StatusUnchanged, res.Skills[0].Status)
	assert.Equal(t, before, snapshot(t, root))
	fi, err := os.Stat(lock)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(old), "the lock was not rewritten")
}

// A skill edited in place is not overwritten: the error names the
// changed, added and removed files; --force overwrites.
func TestEditedSkillIsNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	src := skillFolder(t, dir, "src/demo", "---\nname: demo\ndescription: Demo.\n---\n", map[string]string{
		"references/a.md": "a\n", "references/b.md": "b\n"})
	root := filepath.Join(dir, "root")
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.NoError(t, err)
	dest := filepath.Join(root, "demo")
	require.NoError(t, os.WriteFile(filepath.Join(dest, "references", "a.md"), []byte("mine\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dest, "notes.md"), []byte("new\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dest, "references", "b.md")))
	before := snapshot(t, root)

	_, err = run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.ErrorIs(t, err, install.ErrConflict)
	assert.Contains(t, err.Error(), "was changed since it was installed")
	assert.Contains(t, err.Error(), "changed: references/a.md")
	assert.Contains(t, err.Error(), "added: notes.md")
	assert.Contains(t, err.Error(), "removed: references/b.md")
	assert.Equal(t, before, snapshot(t, root))

	// A new version over local edits: the edited files are named by time.
	require.NoError(t, os.WriteFile(filepath.Join(src, "references", "b.md"), []byte("b2\n"), 0o644))
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dest, "references", "a.md"), later, later))
	_, err = run(t, install.Options{Sources: []string{src}, Roots: []string{root}})
	require.ErrorIs(t, err, install.ErrConflict)
	assert.Contains(t, err.Error(), "references/a.md")

	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root}, Force: true})
	require.NoError(t, err)
	assert.Equal(t, install.StatusUpdated, res.Skills[0].Status)
	body, err := os.ReadFile(filepath.Join(dest, "references", "a.md"))
	require.NoError(t, err)
	assert.Equal(t, "a\n", string(body))
	requireLockMatchesDisk(t, root)
}

// A SKILL.md names its folder's skill; nested skills are not taken along.
func TestInstallSkillMDPath(t *testing.T) {
	dir := t.TempDir()
	src := skillFolder(t, dir, "pdf", "---\nname: pdf\ndescription: PDFs.\n---\n", map[string]string{"scripts/x.py": "print(1)\n"})
	root := filepath.Join(dir, "root")
	res, err := run(t, install.Options{Sources: []string{filepath.Join(src, "SKILL.md")}, Roots: []string{root}})
	require.NoError(t, err)
	require.Len(t, res.Skills, 1)
	assert.Equal(t, "pdf", res.Skills[0].Folder)
	assert.FileExists(t, filepath.Join(root, "pdf", "scripts", "x.py"))
	assert.Equal(t, install.KindPath, res.Skills[0].Source.Kind)
	assert.Equal(t, src, res.Skills[0].Source.Location, "the lock records the folder")
}

// One copy per agent folder; uninstall removes every copy.
func TestCopiesForSeveralAgentsAndUninstall(t *testing.T) {
	dir := t.TempDir()
	src := writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "x\n")))
	claude, codex, other := filepath.Join(dir, "claude"), filepath.Join(dir, "codex"), filepath.Join(dir, "other")
	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{claude, codex}})
	require.NoError(t, err)
	require.Len(t, res.Skills, 2)
	for _, root := range []string{claude, codex} {
		info, err := os.Lstat(filepath.Join(root, "demo"))
		require.NoError(t, err)
		assert.True(t, info.IsDir(), "a copy, not a link")
		requireLockMatchesDisk(t, root)
	}
	// A hand-made namesake in a third folder is left alone when uninstall
	// looks in every agent's folders, and named.
	skillFolder(t, other, "demo", "---\nname: demo\ndescription: Mine.\n---\n", nil)
	out, err := install.NewUninstaller(install.UninstallOptions{Names: []string{"demo"}, Roots: []string{claude, codex, other}, Everywhere: true}).Run(context.Background())
	require.NoError(t, err)
	var statuses []string
	for _, r := range out {
		statuses = append(statuses, filepath.Base(r.Target)+"="+r.Status)
	}
	assert.ElementsMatch(t, []string{"claude=uninstalled", "codex=uninstalled", "other=kept"}, statuses)
	assert.NoDirExists(t, filepath.Join(claude, "demo"))
	assert.NoDirExists(t, filepath.Join(codex, "demo"))
	assert.DirExists(t, filepath.Join(other, "demo"))

	// Named folders only: the hand-made one is refused without --force.
	_, err = install.NewUninstaller(install.UninstallOptions{Names: []string{"demo"}, Roots: []string{other}}).Run(context.Background())
	assert.ErrorIs(t, err, install.ErrConflict)
}

// A namesake in another agent's folder is pointed out.
func TestShadowNote(t *testing.T) {
	dir := t.TempDir()
	src := writeArchive(t, dir, "a.zip", at.Zip(goodSkill("demo", "x\n")))
	agentsDir := filepath.Join(dir, "agents")
	skillFolder(t, agentsDir, "demo", "---\nname: demo\ndescription: Other.\n---\n", nil)
	root := filepath.Join(dir, "claude")
	res, err := run(t, install.Options{Sources: []string{src}, Roots: []string{root},
		Neighbours: []install.Neighbour{{Dir: root, Label: "user"}, {Dir: agentsDir, Label: "user"}}})
	require.NoError(t, err)
	require.Len(t, res.Shadows, 1)
	assert.Equal(t, filepath.Join(agentsDir, "demo"), res.Shadows[0].Other)
}

// Preview (install --list) reads a source and installs nothing.
func TestPreview(t *testing.T) {
	dir := t.TempDir()
	zip := writeArchive(t, dir, "b.zip", at.Zip([]at.Entry{
		{Name: "b/one/SKILL.md", Body: "---\nname: One Skill\ndescription: First.\nversion: 1.2\n---\n"},
		{Name: "b/two/SKILL.md", Body: "---\nname: two\n---\n"},
	}))
	p, err := install.New(install.Options{Sources: []string{zip}, Roots: []string{filepath.Join(dir, "root")}}).Preview(context.Background())
	require.NoError(t, err)
	defer p.Close()
	require.Len(t, p.Skills, 2)
	assert.Equal(t, "One Skill", p.Skills[0].Name)
	assert.Equal(t, "one-skill", p.Skills[0].Folder)
	assert.Equal(t, "1.2", p.Skills[0].Version)
	assert.Empty(t, p.Skills[0].Problems)
	assert.Positive(t, p.Skills[0].Errors, "name-format is counted")
	assert.Equal(t, "two", p.Skills[1].Name)
	require.Len(t, p.Skills[1].Problems, 1)
	assert.True(t, strings.Contains(p.Skills[1].Problems[0], "no description"))
	assert.NoDirExists(t, filepath.Join(dir, "root"))
}

// A SKILL.md whose body (past what a listing reads) is not UTF-8 cannot be
// loaded by show or run: install refuses it.
func TestInstallRefusesABodyThatIsNotUTF8(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("text line\n", 1000) + "\xff\xfe\n"
	src := skillFolder(t, dir, "bad", "---\nname: bad\ndescription: Bad body.\n---\n"+body, nil)
	_, err := run(t, install.Options{Sources: []string{src}, Roots: []string{filepath.Join(dir, "root")}})
	require.ErrorIs(t, err, install.ErrInvalid)
	assert.Contains(t, err.Error(), "not valid UTF-8")
}
