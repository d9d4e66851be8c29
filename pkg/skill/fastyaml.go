package skill

import (
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The fast frontmatter reader. Real SKILL.md frontmatter is a small block
// mapping: plain and quoted scalars, folded and literal block scalars for
// long descriptions, nested mappings (metadata:, requires:), lists of
// scalars (block or flow), comments. fastFields reads exactly that
// without the full YAML machinery and returns ok=false for anything else
// (anchors, tags, multi-line plain or quoted scalars, complex keys, ...),
// which then goes to yaml.v3. For every input it accepts, fastNodes builds
// the tree yaml.v3 builds — kinds, tags, values, styles and positions
// (FuzzFastFrontmatter checks this).

// fastField is one node of the frontmatter: a mapping entry (key set) or a
// sequence item (key empty), in a flat slice in document order; a
// mapping's or sequence's descendants follow it (size of them).
type fastField struct {
	key             string
	keyLine, keyCol int
	kind            yaml.Kind
	value           string // scalar text
	tag             string // !!str, !!int, ... for scalars; !!map, !!seq
	style           yaml.Style
	valLine, valCol int
	// size is the number of descendants that follow this field directly.
	size int
}

// maxFastFields bounds the fields the fast reader takes; more is unusual
// and left to yaml.v3.
const maxFastFields = 512

// linePool recycles the line slices of the fast reader.
var linePool = sync.Pool{New: func() any { s := make([]string, 0, 64); return &s }}

// fastFieldPool recycles field slices between loads of many skills.
var fastFieldPool = sync.Pool{New: func() any { s := make([]fastField, 0, 32); return &s }}

// topFields calls fn for each top-level field with its descendants.
func topFields(fields []fastField, fn func(f *fastField, children []fastField) bool) {
	for i := 0; i < len(fields); i += 1 + fields[i].size {
		if !fn(&fields[i], fields[i+1:i+1+fields[i].size]) {
			return
		}
	}
}

// eachChild calls fn for each direct child among a field's descendants.
func eachChild(desc []fastField, fn func(c *fastField)) {
	for i := 0; i < len(desc); i += 1 + desc[i].size {
		fn(&desc[i])
	}
}

// fastParser reads frontmatter line by line.
type fastParser struct {
	src    string
	lines  []string
	i      int // the next line (0-based)
	fields []fastField
}

// fastFields reads src (the frontmatter, valid UTF-8) into fields; scratch
// is reused for the result. Lines are frontmatter lines (1-based).
func fastFields(src string, scratch []fastField) ([]fastField, bool) {
	if strings.IndexByte(src, '\t') >= 0 || strings.IndexByte(src, '\r') >= 0 {
		return nil, false
	}
	p := &fastParser{src: src, fields: scratch[:0]}
	lp := linePool.Get().(*[]string)
	p.lines = (*lp)[:0]
	defer func() {
		clear(p.lines)
		*lp = p.lines[:0]
		linePool.Put(lp)
	}()
	for s := src; len(s) > 0; {
		var l string
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			l, s = s[:i], s[i+1:]
		} else {
			l, s = s, ""
		}
		if !printableText(l) {
			return nil, false // controls anywhere, comments included, are yaml.v3's to refuse
		}
		p.lines = append(p.lines, l)
	}
	if !p.mapping(0) {
		return nil, false
	}
	p.skipBlank()
	if p.i < len(p.lines) || len(p.fields) == 0 || len(p.fields) > maxFastFields {
		return nil, false // left over (a less indented line), empty, or unusually large
	}
	return p.fields, true
}

func indentOf(line string) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n
}

// skipBlank moves past empty lines, lines of spaces and comment lines.
func (p *fastParser) skipBlank() {
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		n := indentOf(l)
		if n < len(l) && l[n] != '#' {
			return
		}
		p.i++
	}
}

// peek is the next line that is not blank, with its indentation (ok=false
// at the end).
func (p *fastParser) peek() (line string, indent int, ok bool) {
	p.skipBlank()
	if p.i >= len(p.lines) {
		return "", 0, false
	}
	l := p.lines[p.i]
	return l, indentOf(l), true
}

func isSeqItem(content string) bool {
	return content == "-" || strings.HasPrefix(content, "- ")
}

// mapping reads a block mapping whose keys are at column indent.
func (p *fastParser) mapping(indent int) bool {
	for {
		line, n, ok := p.peek()
		if !ok || n < indent {
			return true
		}
		if n > indent || len(p.fields) >= maxFastFields {
			return false
		}
		content := line[n:]
		if isSeqItem(content) {
			return false
		}
		key, restOff, ok := splitKey(content)
		if !ok {
			return false
		}
		lineNo := p.i + 1
		idx := len(p.fields)
		p.fields = append(p.fields, fastField{key: key, keyLine: lineNo, keyCol: n + 1})
		p.i++
		if !p.value(idx, line, n+restOff, lineNo, indent, true) {
			return false
		}
		p.fields[idx].size = len(p.fields) - idx - 1
	}
}

// value reads the value of field idx, which starts at byte off of line
// (lineNo, 1-based); the field is an entry of a mapping at indent, or an
// item of a sequence at indent (inMapping false).
func (p *fastParser) value(idx int, line string, off, lineNo, indent int, inMapping bool) bool {
	rest := line[off:]
	lead := 0
	for lead < len(rest) && rest[lead] == ' ' {
		lead++
	}
	if lead == len(rest) || rest[lead] == '#' {
		if lead < len(rest) && lead == 0 {
			return false // "key:#" is not a comment
		}
		if !inMapping {
			return false // "-" alone, or with a comment: a nested block
		}
		comment := lead < len(rest)
		// A nested block, or null.
		next, n, ok := p.peek()
		if ok && (n > indent || n == indent && isSeqItem(next[n:])) {
			if isSeqItem(next[n:]) {
				p.fields[idx].kind, p.fields[idx].tag = yaml.SequenceNode, "!!seq"
				p.fields[idx].valLine, p.fields[idx].valCol = p.i+1, n+1
				return p.sequence(n)
			}
			p.fields[idx].kind, p.fields[idx].tag = yaml.MappingNode, "!!map"
			p.fields[idx].valLine, p.fields[idx].valCol = p.i+1, n+1
			return p.mapping(n)
		}
		if comment {
			return false // where yaml.v3 puts a null after a comment is its business
		}
		f := &p.fields[idx]
		f.kind, f.tag, f.valLine, f.valCol = yaml.ScalarNode, "!!null", lineNo, off+1
		return true
	}
	if lead == 0 && inMapping {
		return false
	}
	start := off + lead
	f := &p.fields[idx]
	f.kind, f.valLine, f.valCol = yaml.ScalarNode, lineNo, colOf(line, start)
	v := line[start:]
	switch v[0] {
	case '|', '>':
		return p.block(idx, v, indent)
	case '"', '\'':
		val, end, ok := quoted(v)
		if !ok || !onlyComment(v[end:]) {
			return false
		}
		f.value, f.tag = val, "!!str"
		f.style = yaml.DoubleQuotedStyle
		if v[0] == '\'' {
			f.style = yaml.SingleQuotedStyle
		}
	case '[', '{':
		end, ok := p.flow(idx, line, start, lineNo)
		if !ok || !onlyComment(line[end:]) {
			return false
		}
	case ']', '}', '&', '*', '!', '%', '@', '`', ',', '?', '-', ':', '#':
		return false
	default:
		text, ok := plainText(v)
		if !ok {
			return false
		}
		f.value, f.tag = text, resolveTag(text)
	}
	// A more indented line after a one-line value would continue it.
	if _, n, ok := p.peek(); ok && n > indent {
		return false
	}
	return true
}

// plainText reads a one-line plain scalar (block context), ending at a
// comment; ok=false for what a plain scalar cannot hold.
func plainText(v string) (string, bool) {
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimRight(v, " ")
	if v == "" || strings.Contains(v, ": ") || strings.HasSuffix(v, ":") {
		return "", false
	}
	return v, true // its line was checked for controls (fastFields)
}

// onlyComment reports whether s is spaces, optionally then a comment.
func onlyComment(s string) bool {
	n := indentOf(s)
	return n == len(s) || n > 0 && s[n] == '#'
}

// colOf is the 1-based column (in characters) of byte off of line.
func colOf(line string, off int) int {
	for i := 0; i < off; i++ {
		if line[i] >= 0x80 {
			return utf8.RuneCountInString(line[:off]) + 1
		}
	}
	return off + 1
}

// sequence reads a block sequence whose dashes are at column indent; each
// item is a scalar (plain, quoted, block or flow).
func (p *fastParser) sequence(indent int) bool {
	for {
		line, n, ok := p.peek()
		if !ok || n < indent {
			return true
		}
		if n > indent || len(p.fields) >= maxFastFields {
			return false
		}
		if !isSeqItem(line[n:]) {
			return true // the mapping around it goes on ("key:\n- a\nother: b")
		}
		if line[n:] == "-" {
			return false // a nested block as an item
		}
		item := line[n+2:]
		if _, _, isKey := splitKey(strings.TrimLeft(item, " ")); isKey {
			return false // a mapping in the sequence
		}
		lineNo := p.i + 1
		idx := len(p.fields)
		p.fields = append(p.fields, fastField{})
		p.i++
		if !p.value(idx, line, n+1, lineNo, indent, false) {
			return false
		}
	}
}

// block reads a literal (|) or folded (>) block scalar whose header is h;
// its lines are more indented than indent.
func (p *fastParser) block(idx int, h string, indent int) bool {
	folded := h[0] == '>'
	chomp := byte(0)
	rest := h[1:]
	if len(rest) > 0 && (rest[0] == '-' || rest[0] == '+') {
		chomp, rest = rest[0], rest[1:]
	}
	if chomp == '+' || !onlyComment(rest) {
		return false // keep chomping, an indentation indicator, or junk
	}
	// The content: lines indented more than the parent, the first one
	// setting the indentation; empty lines (or short runs of spaces) between.
	blockIndent := -1
	var parts []string
	trailingEmpty := 0
	lastContent := -1
	j := p.i
	for ; j < len(p.lines); j++ {
		l := p.lines[j]
		n := indentOf(l)
		if n == len(l) { // empty, or only spaces
			if blockIndent >= 0 && n > blockIndent || blockIndent < 0 && n > 0 {
				return false // spaces that would be content, or set the indentation
			}
			parts = append(parts, "")
			trailingEmpty++
			continue
		}
		if blockIndent < 0 {
			if n <= indent {
				break
			}
			blockIndent = n
		}
		if n < blockIndent {
			break
		}
		if folded && (n > blockIndent || strings.HasSuffix(l, " ")) {
			return false // more-indented or trailing spaces: folding has special cases
		}
		parts = append(parts, l[blockIndent:])
		trailingEmpty = 0
		lastContent = j
	}
	if blockIndent < 0 {
		return false // an empty block scalar
	}
	// Empty lines at the end are trailing breaks, cut by chomping.
	content := parts[:len(parts)-trailingEmpty]
	if folded && len(content) > 0 && content[0] == "" {
		return false // leading empty lines of a folded scalar: rare, subtle
	}
	var v string
	if folded {
		var b strings.Builder
		for k, part := range content {
			switch {
			case k == 0:
			case part == "":
				b.WriteByte('\n') // an empty line is a line break
			case content[k-1] != "":
				b.WriteByte(' ') // a line break between lines folds to a space
			}
			b.WriteString(part)
		}
		v = b.String()
	} else {
		v = strings.Join(content, "\n")
	}
	if chomp == 0 && len(content) > 0 && (lastContent < len(p.lines)-1 || strings.HasSuffix(p.src, "\n")) {
		v += "\n" // clip: the last line break, when there is one
	}
	f := &p.fields[idx]
	f.value, f.tag = v, "!!str"
	f.style = yaml.LiteralStyle
	if folded {
		f.style = yaml.FoldedStyle
	}
	p.i = j - trailingEmpty
	return true
}

// flow reads a one-line flow sequence or mapping of scalars (and flow
// collections) starting at line[off] into field idx; end is the byte after it.
func (p *fastParser) flow(idx int, line string, off, lineNo int) (end int, ok bool) {
	open := line[off]
	closer := byte(']')
	f := &p.fields[idx]
	f.kind, f.tag, f.style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
	if open == '{' {
		closer = '}'
		f.kind, f.tag = yaml.MappingNode, "!!map"
	}
	f.valLine, f.valCol = lineNo, colOf(line, off)
	i := off + 1
	skip := func() {
		for i < len(line) && line[i] == ' ' {
			i++
		}
	}
	skip()
	if i < len(line) && line[i] == closer {
		f.size = 0
		return i + 1, true
	}
	for {
		if len(p.fields) >= maxFastFields {
			return 0, false
		}
		skip()
		if i >= len(line) {
			return 0, false // the collection goes on on the next line
		}
		child := len(p.fields)
		p.fields = append(p.fields, fastField{})
		if open == '{' {
			key, n, ok := flowKey(line[i:])
			if !ok {
				return 0, false
			}
			p.fields[child].key, p.fields[child].keyLine, p.fields[child].keyCol = key, lineNo, colOf(line, i)
			i += n
			skip()
		}
		if i >= len(line) {
			return 0, false
		}
		c := &p.fields[child]
		c.kind, c.valLine, c.valCol = yaml.ScalarNode, lineNo, colOf(line, i)
		switch line[i] {
		case '[', '{':
			e, ok := p.flow(child, line, i, lineNo)
			if !ok {
				return 0, false
			}
			i = e
		case '"', '\'':
			val, e, ok := quoted(line[i:])
			if !ok {
				return 0, false
			}
			c.value, c.tag, c.style = val, "!!str", yaml.DoubleQuotedStyle
			if line[i] == '\'' {
				c.style = yaml.SingleQuotedStyle
			}
			i += e
		default:
			e := i
			for e < len(line) && !strings.ContainsRune(",[]{}#", rune(line[e])) {
				if line[e] == ':' {
					return 0, false
				}
				e++
			}
			text := strings.TrimRight(line[i:e], " ")
			if text == "" || strings.ContainsAny(text[:1], "&*!%@`?|>-'\"") {
				return 0, false
			}
			c.value, c.tag = text, resolveTag(text)
			i = e
		}
		p.fields[child].size = len(p.fields) - child - 1
		skip()
		if i >= len(line) {
			return 0, false
		}
		switch line[i] {
		case ',':
			i++
			skip()
			if i < len(line) && line[i] == closer {
				return 0, false // a trailing comma
			}
		case closer:
			p.fields[idx].size = len(p.fields) - idx - 1
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// flowKey reads "key: " at the start of s (a flow mapping's entry).
func flowKey(s string) (key string, n int, ok bool) {
	key, off, ok := splitKey(s)
	if !ok || off >= len(s) || s[off] != ' ' {
		return "", 0, false
	}
	return key, off, true
}

// quoted reads a one-line quoted scalar at the start of s: "..." with the
// common escapes, or '...' with ” for a quote. end is the byte after it.
func quoted(s string) (val string, end int, ok bool) {
	q := s[0]
	// Most quoted values hold no escape: they are their own text.
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c == '\\' && q == '"' || c < 0x20 || c == 0x7f {
			break
		}
		if c == q {
			if q == '\'' && i+1 < len(s) && s[i+1] == '\'' {
				break
			}
			return s[1:i], i + 1, true // its line was checked for controls (fastFields)
		}
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == q:
			return b.String(), i + 1, true
		case c == '\\' && q == '"':
			if i+1 >= len(s) {
				return "", 0, false
			}
			i++
			switch s[i] {
			case '\\', '"', '/':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if i+4 >= len(s) {
					return "", 0, false
				}
				r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
				if err != nil || r >= 0xD800 && r <= 0xDFFF || r < 0x20 {
					return "", 0, false
				}
				b.WriteRune(rune(r))
				i += 4
			default:
				return "", 0, false
			}
		case c < 0x20 || c == 0x7f:
			return "", 0, false
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false // not closed on this line
}

// fastNodes builds the yaml.Node tree of fields, all nodes from one slab.
// by is added to every line.
func fastNodes(fields []fastField, by int) *yaml.Node {
	n := 1
	for i := range fields {
		n++
		if fields[i].key != "" {
			n++
		}
	}
	slab := make([]yaml.Node, n)
	next := 0
	alloc := func() *yaml.Node {
		node := &slab[next]
		next++
		return node
	}
	var build func(desc []fastField) []*yaml.Node
	value := func(f *fastField, desc []fastField) *yaml.Node {
		v := alloc()
		v.Kind, v.Tag, v.Value, v.Style, v.Line, v.Column = f.kind, f.tag, f.value, f.style, f.valLine+by, f.valCol
		if f.kind != yaml.ScalarNode {
			v.Value = ""
			v.Content = build(desc)
		}
		return v
	}
	build = func(desc []fastField) []*yaml.Node {
		out := make([]*yaml.Node, 0, len(desc))
		for i := 0; i < len(desc); i += 1 + desc[i].size {
			f := &desc[i]
			if f.key != "" {
				k := alloc()
				k.Kind, k.Tag, k.Value, k.Line, k.Column = yaml.ScalarNode, "!!str", f.key, f.keyLine+by, f.keyCol
				out = append(out, k)
			}
			out = append(out, value(f, desc[i+1:i+1+f.size]))
		}
		return out
	}
	root := alloc()
	root.Kind, root.Tag, root.Line, root.Column = yaml.MappingNode, "!!map", fields[0].keyLine+by, 1
	root.Content = build(fields)
	return root
}

// fastFrontmatter is fastFields then fastNodes (lines unshifted).
func fastFrontmatter(src string) (*yaml.Node, bool) {
	fields, ok := fastFields(src, nil)
	if !ok {
		return nil, false
	}
	return fastNodes(fields, 0), true
}

// splitKey splits "key:" at the start of s, where key is a simple plain
// word; off is the byte after the colon. The colon must end s or be
// followed by a space.
func splitKey(s string) (key string, off int, ok bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || (c == '-' && i > 0) {
			i++
			continue
		}
		break
	}
	if i == 0 || i > 128 || i >= len(s) || s[i] != ':' {
		return "", 0, false
	}
	key = s[:i]
	if resolveTag(key) != "!!str" {
		return "", 0, false
	}
	if i+1 < len(s) && s[i+1] != ' ' {
		return "", 0, false
	}
	return key, i + 1, true
}

// resolveTag is the tag yaml.v3 gives a plain scalar (its resolve): null,
// bool, int, float or timestamp by the YAML 1.2 core schema as yaml.v3
// reads it, else str.
func resolveTag(in string) string {
	switch in {
	case "", "~", "null", "Null", "NULL":
		return "!!null"
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool"
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return "!!float"
	case "<<":
		return "!!merge"
	}
	c := in[0]
	switch {
	case c == '.':
		if _, err := strconv.ParseFloat(in, 64); err == nil {
			return "!!float"
		}
	case c >= '0' && c <= '9' || c == '+' || c == '-':
		if isTimestamp(in) {
			return "!!timestamp"
		}
		plain := strings.ReplaceAll(in, "_", "")
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return "!!int"
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return "!!int"
		}
		if isYAMLFloat(plain) {
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				return "!!float"
			}
		}
		for _, pre := range []struct {
			prefix string
			base   int
		}{{"0b", 2}, {"-0b", 2}, {"0o", 8}, {"-0o", 8}} {
			if strings.HasPrefix(plain, pre.prefix) {
				digits := plain[len(pre.prefix):]
				if pre.prefix[0] == '-' {
					digits = "-" + digits
				}
				if _, err := strconv.ParseInt(digits, pre.base, 64); err == nil {
					return "!!int"
				}
				if pre.prefix[0] != '-' {
					if _, err := strconv.ParseUint(digits, pre.base, 64); err == nil {
						return "!!int"
					}
				}
			}
		}
	}
	return "!!str"
}

// isYAMLFloat matches ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func isYAMLFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// timestampFormats are the forms yaml.v3 takes for timestamps.
var timestampFormats = []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"}

func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}

// printableText reports whether s, which is valid UTF-8 (Parse checks the
// whole file first), holds only characters YAML allows in a one-line
// scalar: no C0 or C1 controls (tab aside), no DEL, no line or paragraph
// separator (U+2028, U+2029), no byte order mark, no U+FFFE or U+FFFF.
// It looks at bytes: in valid UTF-8 each of these has one encoding.
func printableText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x80:
			if c < 0x20 && c != '\t' || c == 0x7f {
				return false
			}
		case c == 0xC2: // U+0080–U+00BF: C1 controls are U+0080–U+009F
			if i+1 < len(s) && s[i+1] < 0xA0 {
				return false
			}
		case c == 0xE2: // U+2028, U+2029: E2 80 A8, E2 80 A9
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				return false
			}
		case c == 0xEF: // U+FEFF: EF BB BF; U+FFFE, U+FFFF: EF BF BE, EF BF BF
			if i+2 < len(s) && (s[i+1] == 0xBB && s[i+2] == 0xBF || s[i+1] == 0xBF && s[i+2] >= 0xBE) {
				return false
			}
		}
	}
	return true
}
