package skill

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// MaxSkillMDSize is the largest SKILL.md skillctl reads.
const MaxSkillMDSize = 2 << 20

// Severity of a diagnostic or finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Diagnostic is something the loader noticed while reading a SKILL.md that
// did not stop it from loading the skill (for example the unquoted-colon retry).
type Diagnostic struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Hint     string `json:"hint,omitempty"`
}

// ParseError is a SKILL.md that cannot be loaded. Rule is the stable rule id
// that validate reports for the same problem.
type ParseError struct {
	Rule   string
	File   string
	Line   int
	Column int
	Msg    string
	Hint   string
}

func (e *ParseError) Error() string {
	loc := e.File
	if loc == "" {
		loc = "SKILL.md"
	}
	if e.Line > 0 {
		loc += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			loc += fmt.Sprintf(":%d", e.Column)
		}
	}
	msg := loc + ": " + e.Msg
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// Document is a parsed SKILL.md: the frontmatter as a YAML node tree with
// positions relative to the file, and the body.
type Document struct {
	// HasBOM is true when the file started with a UTF-8 byte order mark.
	HasBOM bool
	// CRLF is true when the file uses CRLF line endings.
	CRLF bool
	// Frontmatter is the raw frontmatter text (LF line endings), without the --- lines.
	Frontmatter string
	// Root is the frontmatter mapping node. Line numbers are file line numbers.
	Root *yaml.Node
	// Body is everything after the closing --- line (LF line endings).
	Body string
	// BodyLine is the file line number where the body starts.
	BodyLine int
	// Diagnostics are problems the loader recovered from.
	Diagnostics []Diagnostic
	// ColonFixed is true when the YAML only parsed after quoting values
	// holding ": " (see yaml-unquoted-colon).
	ColonFixed bool
	// ClosingSuffix is true when the closing line had trailing spaces.
	ClosingSuffix bool
	// BodySummary is the summary of the body (see Summarize).
	BodySummary string
	// fields holds simple frontmatter read without building nodes (Root is
	// then nil); only listings of many skills load skills that way.
	fields     []fastField
	fieldsPool *[]fastField
	// known indexes fields by knownKeys (index+1; 0: absent), once indexed.
	known   [len(knownKeys)]int32
	indexed bool
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse reads SKILL.md content. file is used in error messages only.
func Parse(data []byte, file string) (*Document, error) {
	return parse(data, file, true)
}

// parse reads SKILL.md content; without keepBody, Body and BodySummary
// are left empty (listings of many skills need neither).
func parse(data []byte, file string, keepBody bool) (*Document, error) {
	if len(data) > MaxSkillMDSize {
		return nil, &ParseError{Rule: "file-too-large", File: file,
			Msg:  fmt.Sprintf("SKILL.md is %s, larger than the %s limit", HumanSize(int64(len(data))), HumanSize(MaxSkillMDSize)),
			Hint: "move long material into references/ files that the body links to"}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, &ParseError{Rule: "binary-file", File: file, Line: lineOf(data, i),
			Msg: "SKILL.md contains NUL bytes; it is not a text file", Hint: "SKILL.md must be UTF-8 Markdown"}
	}
	if !utf8.Valid(data) {
		off := firstInvalidUTF8(data)
		return nil, &ParseError{Rule: "not-utf8", File: file, Line: lineOf(data, off),
			Msg: "SKILL.md is not valid UTF-8", Hint: "save the file as UTF-8"}
	}
	var doc *Document
	if keepBody {
		doc = &Document{}
	} else {
		doc = docPool.Get().(*Document) // a listing gives it back (FromBytes)
	}
	if bytes.HasPrefix(data, utf8BOM) {
		doc.HasBOM = true
		data = data[len(utf8BOM):]
	}
	if bytes.Contains(data, []byte("\r\n")) {
		doc.CRLF = true
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}

	// Frontmatter is found by line: the first line must be ---, and it ends at
	// the next line that is exactly --- (trailing spaces allowed).
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isFenceLine(first) {
		return nil, &ParseError{Rule: "frontmatter-missing", File: file, Line: 1, Column: 1,
			Msg:  "SKILL.md must start with YAML frontmatter (a first line '---')",
			Hint: "begin the file with '---', then name: and description:, then '---'"}
	}
	fmStart := len(data) - len(rest)
	lineNo := 2
	closed := false
	fmEnd := fmStart
	for {
		line, after, more := bytes.Cut(rest, []byte("\n"))
		if isFenceLine(line) {
			closed = true
			doc.ClosingSuffix = string(line) != "---"
			fmEnd = len(data) - len(rest)
			rest = after
			lineNo++
			break
		}
		if !more {
			break
		}
		rest = after
		lineNo++
	}
	if !closed {
		return nil, &ParseError{Rule: "frontmatter-unclosed", File: file, Line: 1, Column: 1,
			Msg:  "the frontmatter opened on line 1 is never closed",
			Hint: "add a line '---' after the last frontmatter field"}
	}
	if keepBody || fmEnd == fmStart {
		doc.Frontmatter = string(data[fmStart:fmEnd])
	} else {
		// A listing reads the frontmatter in place, without a copy: what
		// the skill keeps of it is copied out (Skill.detach) before data
		// is read over.
		doc.Frontmatter = unsafe.String(&data[fmStart], fmEnd-fmStart)
	}
	doc.BodyLine = lineNo
	if keepBody {
		doc.Body = string(rest)
		doc.BodySummary = Summarize(doc.Body, SummaryLength)
	}

	if !keepBody {
		sp := fastFieldPool.Get().(*[]fastField)
		if fields, ok := fastFields(doc.Frontmatter, *sp); ok {
			*sp = fields
			if err := checkDuplicateFields(fields, file); err != nil {
				fastFieldPool.Put(sp)
				return nil, err
			}
			doc.fields, doc.fieldsPool = fields, sp
			return doc, nil
		}
		fastFieldPool.Put(sp)
	}
	root, diags, err := parseFrontmatterYAML(doc.Frontmatter, file)
	if err != nil {
		return nil, err
	}
	doc.Root = root
	if len(diags) > 0 {
		doc.ColonFixed = true
		doc.Diagnostics = append(doc.Diagnostics, diags...)
	}
	if err := checkDuplicateKeys(root, file); err != nil {
		return nil, err
	}
	return doc, nil
}

// docPool recycles the documents of listings, which keep none.
var docPool = sync.Pool{New: func() any { return new(Document) }}

// SummaryLength is the length of a skill's summary in characters.
const SummaryLength = 200

func isFenceLine(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// frontmatterLineOffset is the file line of frontmatter line 1.
const frontmatterLineOffset = 1

func parseFrontmatterYAML(src, file string) (*yaml.Node, []Diagnostic, error) {
	if fields, ok := fastFields(src, nil); ok {
		return fastNodes(fields, frontmatterLineOffset), nil, nil
	}
	node, err := decodeYAML(src)
	if err == nil {
		root, perr := mappingRoot(node, file)
		return root, nil, perr
	}
	// The most common real-world mistake: a plain scalar holding ": ".
	// Quote such values and try once more.
	fixed, lines := quoteColonValues(src)
	if len(lines) > 0 {
		if node2, err2 := decodeYAML(fixed); err2 == nil {
			root, perr := mappingRoot(node2, file)
			if perr != nil {
				return nil, nil, perr
			}
			var diags []Diagnostic
			for _, l := range lines {
				diags = append(diags, Diagnostic{
					Rule: "yaml-unquoted-colon", Severity: SeverityWarning, Line: l + frontmatterLineOffset, Column: 1,
					Message: "value contains ': ' and is not quoted; strict YAML parsers reject it",
					Hint:    "wrap the value in double quotes, or use a block scalar (>)",
				})
			}
			return root, diags, nil
		}
	}
	line, msg := yamlErrorLine(err)
	pe := &ParseError{Rule: "yaml-invalid", File: file, Msg: "invalid YAML in frontmatter: " + msg,
		Hint: "check indentation and quote values that contain ':' or '#'"}
	if line > 0 {
		pe.Line = line + frontmatterLineOffset
		pe.Column = 1
	}
	return nil, nil, pe
}

func decodeYAML(src string) (node *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// MaxYAMLAliases is the most aliases (*name) a frontmatter may use. Honest
// frontmatter uses none; a file full of them (an alias bomb) is refused
// before anything expands them.
const MaxYAMLAliases = 100

func mappingRoot(n *yaml.Node, file string) (*yaml.Node, error) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	var aliases int
	var over *yaml.Node
	shiftLines(n, frontmatterLineOffset, func(a *yaml.Node) {
		if aliases++; aliases == MaxYAMLAliases+1 {
			over = a
		}
	})
	if over != nil {
		return nil, &ParseError{Rule: "yaml-too-complex", File: file, Line: over.Line, Column: over.Column,
			Msg:  fmt.Sprintf("frontmatter uses %d YAML aliases; skillctl reads at most %d", aliases, MaxYAMLAliases),
			Hint: "write the values out instead of repeating them with *aliases"}
	}
	if n.Kind != yaml.MappingNode {
		what := "empty"
		line := 2
		switch n.Kind {
		case yaml.SequenceNode:
			what = "a list"
			line = n.Line
		case yaml.ScalarNode:
			what = "a single value"
			line = n.Line
		}
		return nil, &ParseError{Rule: "frontmatter-not-mapping", File: file, Line: line, Column: 1,
			Msg:  "frontmatter must be a YAML mapping of fields, but it is " + what,
			Hint: "write fields as 'name: my-skill' and 'description: ...'"}
	}
	return n, nil
}

// shiftLines moves every node's line by by, and calls alias for every
// alias node. Alias targets are reached through Content too, so the walk
// sees each node once and cannot cycle.
func shiftLines(n *yaml.Node, by int, alias func(*yaml.Node)) {
	if n == nil {
		return
	}
	if n.Line > 0 {
		n.Line += by
	}
	if n.Kind == yaml.AliasNode {
		alias(n)
	}
	for _, c := range n.Content {
		shiftLines(c, by, alias)
	}
}

var yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

var colonKeyRe = regexp.MustCompile(`^(\s*(?:- )?[A-Za-z0-9_][A-Za-z0-9_.-]*:[ \t]+)(.*)$`)

// quoteColonValues double-quotes plain scalar values that contain ": ".
// It returns the fixed text and the 1-based frontmatter lines it changed.
func quoteColonValues(src string) (string, []int) {
	lines := strings.Split(src, "\n")
	var changed []int
	for i, l := range lines {
		m := colonKeyRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v := strings.TrimRight(m[2], " \t")
		if v == "" || !strings.Contains(v, ": ") {
			continue
		}
		switch v[0] {
		case '"', '\'', '[', '{', '|', '>', '&', '*', '!', '#', '@', '`':
			continue
		}
		// A trailing comment stays a comment.
		comment := ""
		if j := strings.Index(v, " #"); j >= 0 {
			v, comment = v[:j], v[j:]
		}
		lines[i] = m[1] + strconv.Quote(v) + comment
		changed = append(changed, i+1)
	}
	return strings.Join(lines, "\n"), changed
}

func checkDuplicateKeys(n *yaml.Node, file string) error {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode && len(n.Content) > 64 {
		first := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if f, dup := first[k.Value]; dup {
				return &ParseError{Rule: "yaml-duplicate-key", File: file, Line: k.Line, Column: k.Column,
					Msg:  fmt.Sprintf("key %q appears twice (first on line %d)", k.Value, f.Line),
					Hint: "keep one of the two"}
			}
			first[k.Value] = k
		}
	} else if n.Kind == yaml.MappingNode {
		for i := 2; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			for j := 0; j < i; j += 2 {
				if first := n.Content[j]; first.Value == k.Value && first.Kind == k.Kind {
					return &ParseError{Rule: "yaml-duplicate-key", File: file, Line: k.Line, Column: k.Column,
						Msg:  fmt.Sprintf("key %q appears twice (first on line %d)", k.Value, first.Line),
						Hint: "keep one of the two"}
				}
			}
		}
	}
	for _, c := range n.Content {
		if err := checkDuplicateKeys(c, file); err != nil {
			return err
		}
	}
	return nil
}

func checkDuplicateFields(fields []fastField, file string) error {
	// As checkDuplicateKeys: each mapping's keys, then its children, in order.
	var check func(desc []fastField, mapping bool) error
	check = func(desc []fastField, mapping bool) error {
		if mapping {
			for i := 0; i < len(desc); i += 1 + desc[i].size {
				for j := 0; j < i; j += 1 + desc[j].size {
					if desc[i].key == desc[j].key {
						return &ParseError{Rule: "yaml-duplicate-key", File: file, Line: desc[i].keyLine + frontmatterLineOffset,
							Column: desc[i].keyCol, Msg: fmt.Sprintf("key %q appears twice (first on line %d)", desc[i].key,
								desc[j].keyLine+frontmatterLineOffset), Hint: "keep one of the two"}
					}
				}
			}
		}
		for i := 0; i < len(desc); i += 1 + desc[i].size {
			if f := &desc[i]; f.kind != yaml.ScalarNode {
				if err := check(desc[i+1:i+1+f.size], f.kind == yaml.MappingNode); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return check(fields, true)
}

func lineOf(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// HumanSize formats a byte count for people (1.5 KiB).
func HumanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
