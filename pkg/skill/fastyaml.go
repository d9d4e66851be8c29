package skill

import (
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// fastField is one "key: value" line of simple frontmatter, or a "key:"
// line opening a nested mapping of such lines.
type fastField struct {
	key             string
	keyLine, keyCol int
	value           string // scalar text
	tag             string // !!str, !!int, !!bool, !!null, or !!map for nested
	quoted          bool   // a double-quoted scalar
	valLine, valCol int
	// children is the number of nested fields that follow this one
	// directly in the slice (a nested mapping's "key: value" lines).
	children         int
	nestedLine, nCol int // position of the nested mapping (its first key)
}

// fastFieldPool recycles field slices between loads of many skills.
var fastFieldPool = sync.Pool{New: func() any { s := make([]fastField, 0, 16); return &s }}

// topFields calls fn for each top-level field with its nested children.
func topFields(fields []fastField, fn func(f *fastField, children []fastField) bool) {
	for i := 0; i < len(fields); i += 1 + fields[i].children {
		if !fn(&fields[i], fields[i+1:i+1+fields[i].children]) {
			return
		}
	}
}

// fastFields reads the simplest and by far the most common frontmatter —
// "key: plain value" lines, optionally nested mappings one level deep
// (metadata:) — without the full YAML machinery. It returns ok=false for
// anything else (quotes with escapes, block scalars, lists, flow
// collections, comments, anchors, tags, tabs...), and the caller then uses
// yaml.v3. For every input it accepts, fastNodes builds the tree yaml.v3
// builds (FuzzFastFrontmatter checks this). Lines are frontmatter lines
// (1-based). src must be valid UTF-8 (Parse checks it first).
// Nested fields follow their parent in the slice (see children). scratch
// is reused for the result.
func fastFields(src string, scratch []fastField) ([]fastField, bool) {
	fields := scratch[:0]
	open := -1 // index of the field whose nested mapping is open, if any
	nestedIndent := 0
	lineNo := 0
	for len(src) > 0 {
		var line string
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			line, src = src, ""
		}
		lineNo++
		if line == "" {
			continue
		}
		if strings.IndexByte(line, '\t') >= 0 || strings.IndexByte(line, '\r') >= 0 {
			return nil, false
		}
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		if indent == len(line) {
			continue // a line of spaces
		}
		key, rest, ok := splitKey(line[indent:])
		if !ok {
			return nil, false
		}
		if indent == 0 {
			open = -1
			f := fastField{key: key, keyLine: lineNo, keyCol: 1}
			if rest == "" {
				// "key:" opens a nested mapping, or is null when nothing nested follows.
				f.tag, f.valLine, f.valCol = "!!null", lineNo, len(key)+2
				fields = append(fields, f)
				open = len(fields) - 1
				nestedIndent = -1
				continue
			}
			if !plainValue(&f, rest, lineNo, len(key)) {
				return nil, false
			}
			fields = append(fields, f)
			continue
		}
		// An indented line belongs to the open "key:" as a nested mapping.
		if open < 0 {
			return nil, false
		}
		if nestedIndent == -1 {
			parent := &fields[open]
			nestedIndent = indent
			parent.tag = "!!map"
			parent.nestedLine, parent.nCol = lineNo, indent+1
		} else if indent != nestedIndent {
			return nil, false
		}
		if rest == "" {
			return nil, false // deeper nesting: leave it to yaml.v3
		}
		f := fastField{key: key, keyLine: lineNo, keyCol: indent + 1}
		if !plainValue(&f, rest, lineNo, indent+len(key)) {
			return nil, false
		}
		fields = append(fields, f)
		fields[open].children++
	}
	if len(fields) == 0 || len(fields) > 128 {
		return nil, false // empty (let yaml.v3 say so) or unusually large
	}
	return fields, true
}

// fastNodes builds the yaml.Node tree of fields, all nodes from one slab.
// by is added to every line.
func fastNodes(fields []fastField, by int) *yaml.Node {
	slab := make([]yaml.Node, 1+2*len(fields))
	next := 0
	alloc := func() *yaml.Node {
		n := &slab[next]
		next++
		return n
	}
	scalar := func(f *fastField) (*yaml.Node, *yaml.Node) {
		k := alloc()
		k.Kind, k.Tag, k.Value, k.Line, k.Column = yaml.ScalarNode, "!!str", f.key, f.keyLine+by, f.keyCol
		v := alloc()
		v.Kind, v.Tag, v.Value, v.Line, v.Column = yaml.ScalarNode, f.tag, f.value, f.valLine+by, f.valCol
		if f.quoted {
			v.Style = yaml.DoubleQuotedStyle
		}
		return k, v
	}
	root := alloc()
	root.Kind, root.Tag, root.Line, root.Column = yaml.MappingNode, "!!map", fields[0].keyLine+by, 1
	root.Content = make([]*yaml.Node, 0, 2*len(fields))
	topFields(fields, func(f *fastField, children []fastField) bool {
		k, v := scalar(f)
		if f.tag == "!!map" {
			v.Kind, v.Value, v.Line, v.Column = yaml.MappingNode, "", f.nestedLine+by, f.nCol
			v.Content = make([]*yaml.Node, 0, 2*len(children))
			for j := range children {
				nk, nv := scalar(&children[j])
				v.Content = append(v.Content, nk, nv)
			}
		}
		root.Content = append(root.Content, k, v)
		return true
	})
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

// splitKey splits "key: rest" or "key:" where key is a simple plain word.
func splitKey(s string) (key, rest string, ok bool) {
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
		return "", "", false
	}
	key = s[:i]
	if tag, ok := plainTag(key); !ok || tag != "!!str" {
		return "", "", false
	}
	after := s[i+1:]
	if after == "" {
		return key, "", true
	}
	if after[0] != ' ' {
		return "", "", false
	}
	rest = strings.TrimLeft(after, " ")
	if rest == "" {
		return key, "", true
	}
	return key, after, true
}

// plainValue reads the value after "key:" into f (rest starts with
// spaces). col is the 0-based column of the colon. Only plain scalars and
// double-quoted scalars without escapes are accepted.
func plainValue(f *fastField, rest string, line, col int) bool {
	lead := 0
	for lead < len(rest) && rest[lead] == ' ' {
		lead++
	}
	v := strings.TrimRight(rest[lead:], " ")
	f.valLine, f.valCol = line, col+1+lead+1
	if v == "" {
		return false
	}
	switch v[0] {
	case '"':
		if len(v) < 2 || v[len(v)-1] != '"' {
			return false
		}
		inner := v[1 : len(v)-1]
		if strings.ContainsAny(inner, "\"\\") || !printableText(inner) {
			return false
		}
		f.value, f.tag, f.quoted = inner, "!!str", true
		return true
	case '\'', '[', ']', '{', '}', '|', '>', '&', '*', '!', '#', '@', '`', '%', ',', '?', '-', ':':
		return false
	}
	if strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return false
		} else if c >= 0x80 {
			if !printableText(v[i:]) {
				return false
			}
			break
		}
	}
	tag, ok := plainTag(v)
	if !ok {
		return false
	}
	f.value, f.tag = v, tag
	return true
}

// plainTag resolves a plain scalar's tag as YAML 1.2's core schema (and
// yaml.v3) does; ok=false for forms where yaml.v3's resolution is subtle
// (floats, timestamps, YAML 1.1 booleans, base prefixes), which then take
// the full parser.
func plainTag(v string) (string, bool) {
	switch v {
	case "~", "null", "Null", "NULL":
		return "!!null", true
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool", true
	case ".inf", ".Inf", ".INF", "-.inf", "+.inf", ".nan", ".NaN", ".NAN":
		return "", false
	}
	c := v[0]
	if c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' {
		if _, err := strconv.ParseInt(v, 10, 64); err == nil && !strings.HasPrefix(v, "+") && !(len(v) > 1 && v[0] == '0') {
			return "!!int", true
		}
		return "", false
	}
	if len(v) <= 3 {
		switch strings.ToLower(v) {
		case "y", "n", "yes", "no", "on", "off":
			return "", false
		}
	}
	return "!!str", true
}

// printableText reports whether s holds only characters YAML allows in a
// one-line scalar (no C0/C1 controls, no line or paragraph separators, no
// byte order mark, no non-characters).
func printableText(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t' || (r >= 0x20 && r < 0x7f):
		case r >= 0xA0 && r <= 0xD7FF && r != 0x2028 && r != 0x2029:
		case r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF:
		case r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
	}
	return true
}
