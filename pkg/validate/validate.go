// Package validate checks skills against the rules of the Agent Skills
// specification and skillctl's own rules, under a chosen profile.
//
// Rules are data (see Rules): an id, a severity per profile, a summary, a
// hint and the check that finds them. Findings carry the file, line and
// column of what they are about, taken from the YAML nodes of the frontmatter.
package validate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
)

// Profiles.
const (
	ProfileDefault      = "default"
	ProfileSpec         = "spec"
	ProfileClaudeCode   = "claude-code"
	ProfileAnthropicAPI = "anthropic-api"
)

// Profiles lists the profiles, the default first.
var Profiles = []string{ProfileDefault, ProfileSpec, ProfileClaudeCode, ProfileAnthropicAPI}

// Finding is one problem found in a skill.
type Finding = findings.Finding

// Options choose how strictly to validate.
type Options struct {
	// Profile is default, spec, claude-code or anthropic-api ("" is default).
	Profile string
	// DirName, when set, is the folder name the name rules compare with
	// instead of the folder's own (install validates skills in staging
	// folders, under the name they will be installed as).
	DirName string
	// Levels set the severity of rules by id (error, warning, info or
	// off), over the profile's (config validate.rules, --rule); see
	// CheckLevel.
	Levels map[string]string
	// Exclude leaves out the skill folders it matches in tree walks (config
	// validate.exclude).
	Exclude *skilltree.Matcher
}

// Result is the validation of one skill folder.
type Result struct {
	// Dir is the skill folder as given (inside an archive: ARCHIVE!/FOLDER);
	// File its SKILL.md; Name the skill's name when it could be read.
	Dir      string    `json:"path"`
	File     string    `json:"file,omitempty"`
	Name     string    `json:"name,omitempty"`
	Findings []Finding `json:"findings"`
}

// HasErrors reports whether any finding is an error.
func (r *Result) HasErrors() bool { return r.Count(Error) > 0 }

// Count returns the number of findings of a severity.
func (r *Result) Count(severity string) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == severity {
			n++
		}
	}
	return n
}

// Failed reports whether the skill fails: any error, or any warning when strict.
func (r *Result) Failed(strict bool) bool {
	for _, f := range r.Findings {
		if f.Severity == Error || (strict && f.Severity == Warning) {
			return true
		}
	}
	return false
}

// Dir validates the skill folder dir (given a SKILL.md, its folder). A
// relative dir is resolved against the working folder first, so that "." is
// checked under its real name. Archives and trees are validated by Validator.
func Dir(dir string, opts Options) *Result {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	pt := newProfileTable(opts.Profile, opts.Levels)
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		if !strings.EqualFold(filepath.Base(abs), "SKILL.md") {
			return notASkill(pt, dir)
		}
		dir, abs = filepath.Dir(dir), filepath.Dir(abs)
	}
	t := osTarget(dir, abs, nil)
	if opts.DirName != "" {
		t.dirName = opts.DirName
	}
	return validateTarget(t, pt)
}

func notASkill(pt *profileTable, display string) *Result {
	return &Result{Dir: display, Findings: []Finding{{Rule: "not-a-skill", Severity: pt.sev["not-a-skill"],
		Message: display + " is not a skill folder, a SKILL.md or a skill archive", File: display,
		Hint: pt.hint["not-a-skill"]}}}
}

// target is one skill folder to validate, in some file system.
type target struct {
	// fsys is rooted at the skill folder.
	fsys fs.FS
	// display is the folder as shown in results; join builds file names below it.
	display string
	join    func(rel string) string
	// dirName is the folder's name for name-dir-mismatch ("" skips the rule).
	dirName string
	// entries are the folder's entries when already read.
	entries []fs.DirEntry
	// noExecBits is set when the file system keeps no executable bits.
	noExecBits bool
	// abs is the folder on disk ("" inside an archive).
	abs string
	// preName and preData are the skill file when it was already read.
	preName string
	preData []byte
	// scripts caches whether the folder has a scripts/ folder (0: not known yet).
	scripts int8
}

func osTarget(display, abs string, entries []fs.DirEntry) *target {
	return &target{
		fsys:       os.DirFS(abs),
		display:    display,
		join:       func(rel string) string { return filepath.Join(display, filepath.FromSlash(rel)) },
		dirName:    filepath.Base(abs),
		entries:    entries,
		noExecBits: runtime.GOOS == "windows",
		abs:        abs,
	}
}

// readFile reads a file of the skill folder, refusing one over the SKILL.md size limit.
func (t *target) readFile(name string) ([]byte, error) {
	if t.abs == "" {
		return readCapped(t.fsys, name)
	}
	data, err := readSkillFile(filepath.Join(t.abs, name))
	if err == nil && len(data) > skill.MaxSkillMDSize {
		return nil, tooLarge(name)
	}
	return data, err
}

func tooLarge(name string) error {
	return &skill.ParseError{Rule: "file-too-large", File: name,
		Msg:  "SKILL.md is larger than the " + skill.HumanSize(skill.MaxSkillMDSize) + " limit",
		Hint: "move long material into references/ files that the body links to"}
}

// errNotRegular: the path is a folder or a special file, not a regular file.
var errNotRegular = errors.New("not a regular file")

// hasEntry reports whether the folder holds name (of any type); when the
// entries were not read it asks the file system.
func (t *target) hasEntry(name string, dir bool) bool {
	if name == "scripts" && dir && t.scripts != 0 {
		return t.scripts > 0
	}
	ok := t.lookEntry(name, dir)
	if name == "scripts" && dir {
		t.scripts = map[bool]int8{true: 1, false: -1}[ok]
	}
	return ok
}

func (t *target) lookEntry(name string, dir bool) bool {
	if t.entries != nil {
		for _, e := range t.entries {
			if e.Name() == name {
				if !dir {
					return true
				}
				if e.IsDir() {
					return true
				}
				if e.Type()&fs.ModeSymlink != 0 {
					fi, err := fs.Stat(t.fsys, name)
					return err == nil && fi.IsDir()
				}
				return false
			}
		}
		return false
	}
	fi, err := fs.Stat(t.fsys, name)
	if err != nil {
		return false
	}
	return !dir || fi.IsDir()
}

// skillFileName picks SKILL.md, else a lone skill.md.
func (t *target) skillFileName() (string, bool) {
	if t.entries != nil {
		upper, lower := false, false
		for _, e := range t.entries {
			switch e.Name() {
			case "SKILL.md":
				upper = !e.IsDir()
			case "skill.md":
				lower = !e.IsDir()
			}
		}
		switch {
		case upper:
			return "SKILL.md", true
		case lower:
			return "skill.md", true
		}
		return "", false
	}
	for _, n := range []string{"SKILL.md", "skill.md"} {
		if fi, err := fs.Stat(t.fsys, n); err == nil && !fi.IsDir() {
			return n, true
		}
	}
	return "", false
}

// profileTable is the severity of every rule under one profile.
type profileTable struct {
	profile string
	sev     map[string]string
	hint    map[string]string
	checks  []*check
}

func newProfileTable(profile string, levels map[string]string) *profileTable {
	if profile == "" {
		profile = ProfileDefault
	}
	pt := &profileTable{profile: profile, sev: make(map[string]string, len(Rules)),
		hint: make(map[string]string, len(Rules))}
	seen := map[*check]bool{}
	for _, r := range Rules {
		s := r.Severity.For(profile)
		if l, ok := levels[r.ID]; ok {
			s = l
			if l == findings.Off {
				s = Off
			}
		}
		pt.sev[r.ID] = s
		pt.hint[r.ID] = r.Hint
		if s != Off && r.check != nil && !seen[r.check] {
			seen[r.check] = true
			pt.checks = append(pt.checks, r.check)
		}
	}
	return pt
}

// check is the code behind one or more rules.
type check struct {
	run func(c *checker)
}

// checker holds what the checks of one skill share.
type checker struct {
	pt   *profileTable
	t    *target
	file string
	doc  *skill.Document
	// name is the NFKC-normalized name when it is usable text.
	res *Result
}

func (c *checker) on(rule string) bool { return c.pt.sev[rule] != Off }

func (c *checker) spec() bool { return c.pt.profile == ProfileSpec }

// add records a finding of rule at line:col of file (the SKILL.md when file is "").
func (c *checker) add(rule, file string, line, col int, hint, format string, args ...any) {
	sev := c.pt.sev[rule]
	if sev == Off {
		return
	}
	if file == "" {
		file = c.file
	}
	if hint == "" {
		hint = c.pt.hint[rule]
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	c.res.Findings = append(c.res.Findings, Finding{Rule: rule, Severity: sev, Message: msg, File: file,
		Line: line, Column: col, Hint: hint})
}

// addNode records a finding at a YAML node.
func (c *checker) addNode(rule string, n *yaml.Node, hint, format string, args ...any) {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, n.Column
	}
	c.add(rule, "", line, col, hint, format, args...)
}

// field returns the key and value nodes of a top-level frontmatter key.
func (c *checker) field(key string) (*yaml.Node, *yaml.Node) {
	root := c.doc.Root
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i], root.Content[i+1]
		}
	}
	return nil, nil
}

// missingAt is where a finding about a missing field points: the first frontmatter line.
func (c *checker) missingAt() *yaml.Node {
	return &yaml.Node{Line: 2, Column: 1}
}

func validateTarget(t *target, pt *profileTable) *Result {
	c := &checker{pt: pt, t: t, res: &Result{Dir: t.display, Findings: []Finding{}}}
	name, ok := t.preName, t.preName != ""
	if !ok {
		name, ok = t.skillFileName()
	}
	if !ok {
		c.file = t.join("SKILL.md")
		c.add("skill-md-missing", "", 0, 0, "", "no SKILL.md in %s", t.display)
		return c.finish()
	}
	c.file = t.join(name)
	c.res.File = c.file
	if name == "skill.md" {
		c.add("skill-md-lowercase", "", 0, 0, "", "the file is named skill.md; agents look for SKILL.md")
	}
	data := t.preData
	var err error
	if data == nil {
		data, err = t.readFile(name)
	}
	if err != nil {
		var pe *skill.ParseError
		if errors.As(err, &pe) {
			c.addParseError(pe)
		} else {
			c.add("unreadable", "", 0, 0, "", "cannot read %s: %v", name, err)
		}
		return c.finish()
	}
	if !c.load(data) {
		return c.finish()
	}
	for _, ch := range pt.checks {
		ch.run(c)
	}
	return c.finish()
}

func (c *checker) finish() *Result {
	sortFindings(c.res.Findings)
	return c.res
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
}

// readCapped reads a SKILL.md, refusing one over the size limit without reading it whole.
func readCapped(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 512
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= skill.MaxSkillMDSize {
		size = int(fi.Size()) + 1
	}
	var buf bytes.Buffer
	buf.Grow(size)
	if _, err := buf.ReadFrom(io.LimitReader(f, skill.MaxSkillMDSize+1)); err != nil {
		return nil, err
	}
	if buf.Len() > skill.MaxSkillMDSize {
		return nil, tooLarge(name)
	}
	return buf.Bytes(), nil
}

func (c *checker) addParseError(pe *skill.ParseError) {
	line, col := pe.Line, pe.Column
	c.add(pe.Rule, "", line, col, pe.Hint, "%s", pe.Msg)
}

// load parses SKILL.md into c.doc and records what reading it found. It
// returns false when there is no frontmatter to check further.
func (c *checker) load(data []byte) bool {
	var doc *skill.Document
	var err error
	if c.spec() {
		doc, err = c.specDocument(data)
	} else {
		doc, err = parseSkill(data, c.file)
	}
	if err != nil {
		var pe *skill.ParseError
		if errors.As(err, &pe) {
			c.addParseError(pe)
		} else if !errors.Is(err, errStop) {
			c.add("yaml-invalid", "", 1, 1, "", "%v", err)
		}
		return false
	}
	c.doc = doc
	if doc.HasBOM {
		c.add("bom", "", 1, 1, "", "SKILL.md starts with a UTF-8 byte order mark")
	}
	for _, d := range doc.Diagnostics {
		c.add(d.Rule, "", d.Line, d.Column, d.Hint, "%s", d.Message)
	}
	if !c.spec() {
		if i := strings.Index(doc.Frontmatter, "---"); i >= 0 {
			c.add("frontmatter-inner-dashes", "", 2+strings.Count(doc.Frontmatter[:i], "\n"), 1, "",
				"'---' inside the frontmatter; the reference validator ends the frontmatter there")
		}
	}
	if n := c.doc.Field("name"); n != nil && n.Kind == yaml.ScalarNode {
		c.res.Name = strings.TrimSpace(n.Value)
	}
	return true
}

var errStop = errors.New("stop")

// specDocument frames SKILL.md the way the reference validator does: the
// content must start with "---" (a byte order mark is not skipped), and the
// frontmatter is everything up to the next "---", wherever it is.
func (c *checker) specDocument(data []byte) (*skill.Document, error) {
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		// Let the lenient reader refuse what it refuses (size, encoding) first.
		if _, err := skill.Parse(data, c.file); err != nil {
			var pe *skill.ParseError
			if errors.As(err, &pe) && (pe.Rule == "not-utf8" || pe.Rule == "binary-file" || pe.Rule == "file-too-large") {
				return nil, err
			}
		}
		c.add("bom", "", 1, 1, "", "SKILL.md starts with a UTF-8 byte order mark, so it does not start with '---'")
		return nil, errStop
	}
	text := string(data)
	crlf := strings.Contains(text, "\r\n")
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	if !strings.HasPrefix(text, "---") {
		return skill.Parse(data, c.file)
	}
	idx := strings.Index(text[3:], "---")
	if idx < 0 {
		return skill.Parse(data, c.file)
	}
	cut := 3 + idx
	first, _, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t\r") != "---" || fenceOffset(text, len(first)+1) == cut {
		return parseSkill(data, c.file)
	}
	// A "---" before the closing line: the reference reads the frontmatter up to it.
	cutLine := 1 + strings.Count(text[:cut], "\n")
	region := ""
	if len(first)+1 <= cut {
		region = text[len(first)+1 : cut]
	}
	synth := "---\n" + region
	if !strings.HasSuffix(synth, "\n") {
		synth += "\n"
	}
	synth += "---\n"
	doc, err := skill.Parse([]byte(synth), c.file)
	c.add("frontmatter-inner-dashes", "", cutLine, 1, "",
		"'---' on line %d ends the frontmatter for the reference validator; the rest of the line and the lines after it are not read as fields", cutLine)
	if err != nil {
		return nil, err
	}
	doc.Body = text[cut+3:]
	doc.BodyLine = cutLine
	doc.CRLF = crlf
	return doc, nil
}

// fenceOffset is the byte offset of the first line at or after from that is
// a closing fence ("---" with optional trailing blanks), or -1.
func fenceOffset(text string, from int) int {
	for off := from; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		line := text[off:]
		if end >= 0 {
			line = text[off : off+end]
		}
		if strings.TrimRight(line, " \t\r") == "---" {
			return off
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return -1
}
