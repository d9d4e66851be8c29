// Package audit looks for what makes a skill dangerous to load or run, the
// way a reviewer would (SPEC §14): hidden text, prompt injection, remote
// code, credential access, exfiltration and capability mismatches. The
// rules are data (rules.go); this file reads every file of a skill —
// SKILL.md, references, scripts of any language, hidden files, binaries
// by content — and matches them.
package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
)

// MaxFileBytes is how much of one file is read; the rest of a larger file
// is not audited (and a finding says so).
const MaxFileBytes = 8 << 20

// Finding is one audit finding: the shared finding (rule, severity,
// message, file, line, column) with the rule's category, the matched
// text made visible, why it matters, how to fix it, and a fingerprint
// (rule, file and match) that a baseline accepts.
type Finding struct {
	findings.Finding
	Category    string `json:"category"`
	Match       string `json:"match"`
	Why         string `json:"why"`
	Fix         string `json:"fix"`
	Fingerprint string `json:"fingerprint"`
}

// Result is the audit of one skill.
type Result struct {
	// Path is the skill folder as given (or as found below a given path).
	Path     string    `json:"path"`
	Name     string    `json:"name"`
	Findings []Finding `json:"findings"`
	// Files is the number of files read.
	Files int `json:"files"`
	// Bytes is what was read of them.
	Bytes int64 `json:"bytes"`
}

// Dir audits the skill in dir. display is how its files are named in
// findings (dir itself when empty): display/REL.
func Dir(ctx context.Context, dir, display string) (*Result, error) {
	if display == "" {
		display = dir
	}
	a := &auditor{dir: dir, display: display, res: &Result{Path: display, Name: filepath.Base(dir), Findings: []Finding{}}}
	if bufs, ok := bufPool.Get().(*[2][]byte); ok {
		a.buf, a.lower = bufs[0], bufs[1]
	}
	defer func() { bufPool.Put(&[2][]byte{a.buf[:0], a.lower[:0]}) }()
	if sk, err := skill.Load(dir, skill.LoadOptions{}); err == nil {
		a.sk = sk
		if sk.NameDeclared {
			a.res.Name = sk.Name
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a folder that cannot be read: what can be read is audited
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // links are not followed (install refuses those leaving the skill)
		}
		rel, _ := filepath.Rel(dir, p)
		return a.file(p, filepath.ToSlash(rel))
	})
	if err != nil {
		return nil, err
	}
	a.skillRules()
	sort.SliceStable(a.res.Findings, func(i, j int) bool {
		x, y := a.res.Findings[i], a.res.Findings[j]
		if x.File != y.File {
			return x.File < y.File
		}
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		return x.Column < y.Column
	})
	return a.res, nil
}

// bufPool keeps the read and lowercase buffers between skills.
var bufPool sync.Pool

type auditor struct {
	dir, display string
	sk           *skill.Skill
	res          *Result
	buf          []byte
	lower        []byte
	// network and secrets are where scripts use the network and which
	// secret variables they read (for the capability rules).
	network *Finding
	secrets map[string]*Finding
	// toolsAt is the line and column of allowed-tools in SKILL.md, noted
	// while it is read.
	toolsAt [2]int
}

// kinds of text file.
const (
	kindMarkdown = iota
	kindScript
	// kindCode: build and CI files that run commands (Dockerfile,
	// Makefile, YAML).
	kindCode
	// kindData: other text (plain text, JSON, CSV, rule files…): read
	// by the AllText rules only.
	kindData
)

var scriptExt = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".ksh": true, ".py": true, ".js": true,
	".mjs": true, ".cjs": true, ".ts": true, ".mts": true, ".rb": true, ".pl": true, ".php": true, ".lua": true, ".ps1": true,
	".psm1": true, ".bat": true, ".cmd": true, ".go": true, ".rs": true, ".java": true, ".kt": true, ".swift": true, ".r": true}

func (a *auditor) file(p, rel string) error {
	f, err := os.Open(p)
	if err != nil {
		// Not dropped silently: what cannot be read was not audited.
		a.add(ruleByID["file-not-read"], rel, []byte("it cannot be opened: "+skill.ErrorReason(err)), 0, 0)
		return nil
	}
	defer f.Close()
	if cap(a.buf) < 64<<10 {
		a.buf = make([]byte, 0, 64<<10)
	}
	buf := a.buf[:0]
	lr := io.LimitReader(f, MaxFileBytes)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			a.add(ruleByID["file-not-read"], rel, []byte("reading it failed: "+skill.ErrorReason(err)), 0, 0)
			return nil
		}
	}
	a.buf = buf
	a.res.Files++
	a.res.Bytes += int64(len(buf))
	if len(buf) >= MaxFileBytes {
		if fi, err := f.Stat(); err == nil && fi.Size() > MaxFileBytes {
			a.add(ruleByID["file-not-read"], rel,
				[]byte(fmt.Sprintf("only its first %d MiB of %d MiB were read", MaxFileBytes>>20, fi.Size()>>20)), 0, 0)
		}
	}
	if binaryKind(buf) != "" || bytes.IndexByte(buf[:min(len(buf), 8000)], 0) >= 0 {
		a.binary(rel, buf)
		return nil
	}
	kind := kindData
	ext := strings.ToLower(path.Ext(rel))
	base := strings.ToLower(path.Base(rel))
	switch {
	case ext == ".md" || ext == ".markdown" || ext == ".mdx":
		kind = kindMarkdown
	case scriptExt[ext] || strings.HasPrefix(rel, "scripts/") || bytes.HasPrefix(buf, []byte("#!")):
		kind = kindScript
	case strings.HasPrefix(base, "dockerfile") || strings.HasSuffix(base, ".dockerfile") || base == "makefile" || ext == ".mk" ||
		ext == ".yml" || ext == ".yaml" || base == ".zshrc" || base == ".bashrc" || base == ".profile":
		kind = kindCode
	}
	a.text(rel, buf, kind)
	return nil
}

// binaryKind names an executable or archive format by its magic number.
func binaryKind(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		return "ELF executable"
	case bytes.HasPrefix(b, []byte("MZ")) && len(b) > 0x40:
		return "Windows executable"
	case bytes.HasPrefix(b, []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(b, []byte{0xce, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(b, []byte{0xca, 0xfe, 0xba, 0xbe}) && len(b) > 8 && b[7] < 0x20:
		return "Mach-O executable"
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		return "zip archive"
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return "gzip archive"
	case bytes.HasPrefix(b, []byte("7z\xbc\xaf\x27\x1c")):
		return "7z archive"
	case bytes.HasPrefix(b, []byte("Rar!")):
		return "rar archive"
	case bytes.HasPrefix(b, []byte("BZh")) && len(b) > 3 && b[3] >= '1' && b[3] <= '9':
		return "bzip2 archive"
	case bytes.HasPrefix(b, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "xz archive"
	case len(b) > 262 && string(b[257:262]) == "ustar":
		return "tar archive"
	}
	return ""
}

func (a *auditor) binary(rel string, b []byte) {
	kind := binaryKind(b)
	switch {
	case strings.HasSuffix(kind, "executable"):
		a.add(ruleByID["executable-binary"], rel, []byte(kind), 0, 0)
	case strings.HasSuffix(kind, "archive") && strings.HasPrefix(rel, "scripts/"):
		a.add(ruleByID["archive-in-scripts"], rel, []byte(kind), 0, 0)
	}
}

// text runs the text rules over one file.
func (a *auditor) text(rel string, b []byte, kind int) {
	a.hidden(rel, b)
	if a.sk != nil && rel == relFile(a.dir, a.sk.File) {
		if i := bytes.Index(b, []byte("allowed-tools")); i >= 0 {
			a.toolsAt[0], a.toolsAt[1] = position(b, i)
		}
	}
	// Lowercase once (ASCII): the rules' keys are looked up in it.
	if cap(a.lower) < len(b) {
		a.lower = make([]byte, len(b), len(b)+len(b)/4)
	}
	lower := a.lower[:len(b)]
	for i, c := range b {
		lower[i] = asciiLower[c]
	}
	var code [][2]int
	if kind == kindMarkdown {
		code = fencedBlocks(b)
	}
	hits := keyHits(lower)
	pats := patterns()
	for i := range Rules {
		r := &Rules[i]
		if pats[i] == nil {
			continue
		}
		switch r.Scope {
		case Scripts:
			if kind != kindScript {
				continue
			}
		case Markdown:
			if kind != kindMarkdown {
				continue
			}
		case Code:
			if kind == kindData || kind == kindMarkdown && len(code) == 0 {
				continue
			}
		case AllText:
		default:
			continue
		}
		if len(r.Keys) > 0 && hits[i] == nil {
			continue
		}
		lastLine := -1
		for _, m := range matches(r, pats[i], b, hits[i]) {
			if r.Scope == Code && kind == kindMarkdown && !inside(code, m[0]) {
				continue
			}
			if r.Negatable && negated(b, m[0]) || r.Keep != nil && !r.Keep(b[m[0]:m[1]]) {
				continue
			}
			line, col := position(b, m[0])
			if line == lastLine {
				continue // one finding per rule and line
			}
			lastLine = line
			f := a.finding(r, rel, b[m[0]:m[1]], line, col)
			// SKILL.md is what the agent is told to do; other Markdown
			// is documentation it may read.
			if kind == kindMarkdown && r.InDocs != "" && !skilltree.IsSkillFile(path.Base(rel)) {
				f.Severity = r.InDocs
			}
			if r.Quoted != "" && quoted(b, m[0]) {
				f.Severity = r.Quoted
				f.Message += " (quoted)"
			}
			a.res.Findings = append(a.res.Findings, *f)
		}
	}
	if kind == kindScript {
		if s, e := encodedBlob(b); e > s {
			line, col := position(b, s)
			a.add(ruleByID["obfuscated-script"], rel, b[s:e], line, col)
		}
		a.capabilities(rel, b)
	}
}

// encodedBlob finds the first run of at least 600 base64 characters, or
// of 150 \xHH escapes: kilobytes of encoded data in a script.
func encodedBlob(b []byte) (start, end int) {
	run := 0
	for i, c := range b {
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' {
			run++
			continue
		}
		if run >= 600 {
			return i - run, i
		}
		run = 0
	}
	if run >= 600 {
		return len(b) - run, len(b)
	}
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(`\x`))
		if i < 0 {
			return 0, 0
		}
		s := off + i
		e := s
		for e+4 <= len(b) && b[e] == '\\' && b[e+1] == 'x' && isHex(b[e+2]) && isHex(b[e+3]) {
			e += 4
		}
		if (e-s)/4 >= 150 {
			return s, e
		}
		off = max(e, s+2)
	}
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// capabilities notes where scripts use the network and read secrets.
func (a *auditor) capabilities(rel string, b []byte) {
	if a.network == nil {
		if m := networkUse().FindIndex(b); m != nil {
			line, col := position(b, m[0])
			a.network = a.finding(ruleByID["undeclared-network"], rel, b[m[0]:m[1]], line, col)
		}
	}
	for _, m := range secretEnv().FindAllSubmatchIndex(b, 20) {
		name := string(b[m[2]:m[3]])
		if a.secrets == nil {
			a.secrets = map[string]*Finding{}
		}
		if a.secrets[name] == nil {
			line, col := position(b, m[0])
			a.secrets[name] = a.finding(ruleByID["undeclared-secret"], rel, b[m[2]:m[3]], line, col)
		}
	}
}

// skillRules are the checks of the skill as a whole: its frontmatter
// against what its scripts do.
func (a *auditor) skillRules() {
	if a.sk == nil {
		return
	}
	perms := map[string]bool{}
	for _, p := range a.sk.Exec.Permissions {
		perms[strings.TrimSpace(p)] = true
	}
	if a.network != nil && !perms["network"] {
		a.res.Findings = append(a.res.Findings, *a.network)
	}
	names := make([]string, 0, len(a.secrets))
	for n := range a.secrets {
		if !perms["env:"+n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		a.res.Findings = append(a.res.Findings, *a.secrets[n])
	}
	var tools []string
	for _, t := range a.sk.AllowedTools {
		tools = append(tools, splitTools(t)...)
	}
	for _, t := range tools {
		id := ""
		switch strings.ReplaceAll(t, " ", "") {
		case "Bash(*)", "Bash(*:*)", "Bash(:*)", "*", "Bash(**)":
			id = "broad-allowed-tools"
		case "Bash":
			id = "unscoped-bash"
		default:
			continue
		}
		line, col := max(1, a.toolsAt[0]), max(1, a.toolsAt[1])
		a.add(ruleByID[id], relFile(a.dir, a.sk.File), []byte(t), line, col)
		return
	}
}

// splitTools splits an allowed-tools value at commas and spaces outside
// parentheses: "Bash(git status:*) Read, Write".
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s + " " {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t'):
			if t := strings.TrimSpace(s[start:min(i, len(s))]); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	return out
}

func relFile(dir, f string) string {
	if r, err := filepath.Rel(dir, f); err == nil {
		return filepath.ToSlash(r)
	}
	return f
}

// hidden finds invisible characters: tag characters (one finding per run,
// with the text they spell), bidi controls and zero-width characters (one
// finding per line each).
func (a *auditor) hidden(rel string, b []byte) {
	lastBidi, lastZW := -1, -1
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0xe2 {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r >= 0xe0000 && r <= 0xe007f:
			start := i
			var spelled strings.Builder
			for i < len(b) {
				r, size := utf8.DecodeRune(b[i:])
				if r < 0xe0000 || r > 0xe007f {
					break
				}
				if t := r - 0xe0000; t >= 0x20 && t < 0x7f {
					spelled.WriteRune(t)
				}
				i += size
			}
			line, col := position(b, start)
			f := a.finding(ruleByID["unicode-tag-characters"], rel, b[start:i], line, col)
			if spelled.Len() > 0 {
				f.Message += ": they spell " + quoteVisible(spelled.String())
			}
			a.res.Findings = append(a.res.Findings, *f)
			continue
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			if line, col := position(b, i); line != lastBidi {
				lastBidi = line
				a.add(ruleByID["bidi-control"], rel, b[i:i+size], line, col)
			}
		case r == 0x200b || r == 0x2060 || r == 0x2062 || r == 0x2063 || r == 0x2064 || r == 0xfeff && i > 0 ||
			(r == 0x200c || r == 0x200d) && asciiLetterAt(b, i-1) && asciiLetterAt(b, i+size):
			if line, col := position(b, i); line != lastZW {
				lastZW = line
				a.add(ruleByID["zero-width-characters"], rel, b[max(0, i-8):min(len(b), i+size+8)], line, col)
			}
		}
		i += size
	}
}

// negated reports whether the words just before off say not to: "never
// disable the sandbox".
func negated(b []byte, off int) bool {
	before := strings.ToLower(string(b[max(0, off-16):off]))
	for _, w := range []string{"never ", "not ", "don't ", "do not ", "must not ", "no need to ", "without "} {
		if strings.HasSuffix(before, w) {
			return true
		}
	}
	return false
}

// quoted reports whether the text at off opens with a quotation mark: an
// example of a phrase rather than the phrase said.
func quoted(b []byte, off int) bool {
	for _, q := range []string{"\"", "'", "`", "“", "‘", "«", "„"} {
		if off >= len(q) && string(b[off-len(q):off]) == q {
			return true
		}
	}
	return false
}

func asciiLetterAt(b []byte, i int) bool {
	if i < 0 || i >= len(b) {
		return false
	}
	c := b[i] | 0x20
	return 'a' <= c && c <= 'z'
}

// fencedBlocks lists the byte ranges of the fenced code blocks (``` or
// ~~~) of a Markdown text; an unclosed fence runs to the end.
func fencedBlocks(b []byte) [][2]int {
	var out [][2]int
	open, start := "", 0
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += off + 1
		}
		line := bytes.TrimLeft(b[off:end], " ")
		if len(b[off:end])-len(line) <= 3 {
			switch {
			case open == "" && (bytes.HasPrefix(line, []byte("```")) || bytes.HasPrefix(line, []byte("~~~"))):
				open, start = string(line[:3]), end
			case open != "" && bytes.HasPrefix(line, []byte(open)):
				out = append(out, [2]int{start, off})
				open = ""
			}
		}
		off = end
	}
	if open != "" {
		out = append(out, [2]int{start, len(b)})
	}
	return out
}

func inside(ranges [][2]int, off int) bool {
	i := sort.Search(len(ranges), func(i int) bool { return ranges[i][1] > off })
	return i < len(ranges) && ranges[i][0] <= off
}

// maxMatches bounds the matches of one rule in one file.
const maxMatches = 50

// keys is an Aho–Corasick automaton of every rule's keys (lowercase): one
// pass over a text finds every occurrence of every key, one table lookup a
// byte, however many keys there are.
var keys = sync.OnceValue(buildKeys)

type keyAutomaton struct {
	// next is the transition table, 256 entries a state.
	next []int32
	// out lists, for each state, the keys that end there (with the
	// failure chain folded in): their length and the rules that have them.
	out [][]keyEnd
}

type keyEnd struct {
	length int
	rules  []int
}

func buildKeys() *keyAutomaton {
	type node struct {
		child map[byte]int
		fail  int
		out   []keyEnd
	}
	nodes := []*node{{child: map[byte]int{}}}
	for ri, r := range Rules {
		for _, k := range r.Keys {
			n := 0
			for i := 0; i < len(k); i++ {
				c, ok := nodes[n].child[k[i]]
				if !ok {
					nodes = append(nodes, &node{child: map[byte]int{}})
					c = len(nodes) - 1
					nodes[n].child[k[i]] = c
				}
				n = c
			}
			found := false
			for i := range nodes[n].out {
				if nodes[n].out[i].length == len(k) {
					nodes[n].out[i].rules = append(nodes[n].out[i].rules, ri)
					found = true
				}
			}
			if !found {
				nodes[n].out = append(nodes[n].out, keyEnd{length: len(k), rules: []int{ri}})
			}
		}
	}
	a := &keyAutomaton{next: make([]int32, 256*len(nodes)), out: make([][]keyEnd, len(nodes))}
	// Breadth first: each state's transitions and failure links.
	queue := []int{}
	for c := 0; c < 256; c++ {
		if ch, ok := nodes[0].child[byte(c)]; ok {
			a.next[c] = int32(ch)
			queue = append(queue, ch)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		f := nodes[n].fail
		nodes[n].out = append(nodes[n].out, nodes[f].out...)
		for c := 0; c < 256; c++ {
			if ch, ok := nodes[n].child[byte(c)]; ok {
				nodes[ch].fail = int(a.next[f*256+c])
				a.next[n*256+c] = int32(ch)
				queue = append(queue, ch)
			} else {
				a.next[n*256+c] = a.next[f*256+c]
			}
		}
	}
	for i, n := range nodes {
		a.out[i] = n.out
	}
	return a
}

// keyHits lists, for each rule, where its keys occur in lower.
func keyHits(lower []byte) map[int][]int {
	var hits map[int][]int
	k := keys()
	next, out := k.next, k.out
	state := int32(0)
	for i, c := range lower {
		state = next[int(state)<<8|int(c)]
		if out[state] == nil {
			continue
		}
		for _, e := range out[state] {
			if hits == nil {
				hits = map[int][]int{}
			}
			for _, r := range e.rules {
				if h := hits[r]; len(h) < 4*maxMatches {
					hits[r] = append(h, i+1-e.length)
				}
			}
		}
	}
	return hits
}

// asciiLower maps a byte to its ASCII lowercase.
var asciiLower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// matches finds r's pattern in b. A rule with keys is matched only around
// the places its keys occur (hits): on the line of each occurrence and the
// next (a phrase a Markdown line break splits), or, for an HTML comment, up
// to its end. Most files hold no key of most rules, so most of the text is
// never run through a pattern.
func matches(r *Rule, pat *regexp.Regexp, b []byte, hits []int) [][]int {
	if len(r.Keys) == 0 {
		return pat.FindAllIndex(b, maxMatches)
	}
	sort.Ints(hits)
	var out [][]int
	done := 0 // the text before done was matched already
	for _, i := range hits {
		if i < done || len(out) >= maxMatches {
			continue
		}
		// a line is at most 4 KiB around the key here: a file of one
		// huge line (minified data) is read in windows
		lo := max(0, i-4096, done)
		start := bytes.LastIndexByte(b[lo:i], '\n') + 1 + lo
		end := min(lineEnd(b, i), i+4096)
		if bytes.HasPrefix(b[i:], []byte("<!--")) {
			if j := bytes.Index(b[i:min(len(b), i+16<<10)], []byte("-->")); j >= 0 {
				end = i + j + 3
			}
		} else {
			end = min(lineEnd(b, end), end+4096)
		}
		for _, m := range pat.FindAllIndex(b[start:end], maxMatches) {
			if len(out) == 0 || out[len(out)-1][0] < m[0]+start {
				out = append(out, []int{m[0] + start, m[1] + start})
			}
		}
		// the next line was only context: matches starting there are
		// found again from its own window
		done = min(lineEnd(b, i), end)
	}
	return out
}

// lineEnd is the offset just past the line holding i (the end of b).
func lineEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(b)
}

// position is the 1-based line and column (in characters) of offset off.
func position(b []byte, off int) (line, col int) {
	line = 1 + bytes.Count(b[:off], []byte("\n"))
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(b[start:off])
}

func (a *auditor) add(r *Rule, rel string, match []byte, line, col int) {
	a.res.Findings = append(a.res.Findings, *a.finding(r, rel, match, line, col))
}

func (a *auditor) finding(r *Rule, rel string, match []byte, line, col int) *Finding {
	m := strings.TrimRight(string(match), " \t")
	if len(m) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(m[cut]) {
			cut--
		}
		m = m[:cut] + "…"
	}
	shown := quoteVisible(m)
	sum := sha256.Sum256([]byte(r.ID + "\x00" + rel + "\x00" + string(match)))
	return &Finding{
		Finding: findings.Finding{Rule: r.ID, Severity: r.Severity, Message: r.Message + ": " + shown,
			File: path.Join(filepath.ToSlash(a.display), rel), Line: line, Column: col, Hint: r.Why + " " + r.Fix},
		Category: r.Category, Match: shown, Why: r.Why, Fix: r.Fix, Fingerprint: hex.EncodeToString(sum[:8]),
	}
}

// quoteVisible quotes s with every invisible, control or format character
// written as \u{XXXX}, so that the matched text shows what is there.
func quoteVisible(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || invisible(r) || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u{%04X}`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func invisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x206f,
		r == 0xfeff, r == 0xad, r >= 0xe0000 && r <= 0xe007f, r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return false
}
