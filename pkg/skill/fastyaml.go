package skill

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// fastFrontmatter builds the yaml.Node tree of the simplest and by far the
// most common frontmatter — "key: plain value" lines, optionally one nested
// mapping of such lines (metadata:) — without the full YAML machinery.
// It returns ok=false for anything else (quotes with escapes, block
// scalars, lists, flow collections, comments, anchors, tags, tabs...), and
// the caller then uses yaml.v3. For every input it accepts, the tree equals
// what yaml.v3 builds (FuzzFastFrontmatter checks this).
// Lines are frontmatter lines (1-based); the caller shifts them.
func fastFrontmatter(src string) (*yaml.Node, bool) {
	// All nodes come from one slab: at most two per line, plus the root.
	slab := make([]yaml.Node, 0, 2*strings.Count(src, "\n")+3)
	alloc := func(n yaml.Node) *yaml.Node {
		slab = slab[:len(slab)+1]
		p := &slab[len(slab)-1]
		*p = n
		return p
	}
	root := alloc(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1})
	var nested *yaml.Node // the open nested mapping, if any
	nestedIndent := 0
	lineNo := 0
	first := true
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
		keyNode := alloc(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: lineNo, Column: indent + 1})
		if indent == 0 {
			nested = nil
			if first {
				root.Line, root.Column = lineNo, 1
				first = false
			}
			if rest == "" {
				// "key:" opens a nested mapping, or is null when nothing nested follows.
				valNode := alloc(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: lineNo, Column: len(key) + 2})
				root.Content = append(root.Content, keyNode, valNode)
				nested = valNode
				nestedIndent = -1
				continue
			}
			val, ok := plainValue(rest, lineNo, len(key))
			if !ok {
				return nil, false
			}
			root.Content = append(root.Content, keyNode, alloc(val))
			continue
		}
		// An indented line belongs to the open "key:" as a nested mapping.
		if nested == nil {
			return nil, false
		}
		if nestedIndent == -1 {
			nestedIndent = indent
			nested.Kind, nested.Tag = yaml.MappingNode, "!!map"
			nested.Line, nested.Column = lineNo, indent+1
		} else if indent != nestedIndent {
			return nil, false
		}
		if rest == "" {
			return nil, false // deeper nesting: leave it to yaml.v3
		}
		val, ok := plainValue(rest, lineNo, indent+len(key))
		if !ok {
			return nil, false
		}
		nested.Content = append(nested.Content, keyNode, alloc(val))
	}
	if first {
		return nil, false // empty: let yaml.v3 say so
	}
	return root, true
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

// plainValue reads the value after "key:" (rest starts with spaces). col is
// the 0-based column of the colon. Only plain scalars and double-quoted
// scalars without escapes are accepted.
func plainValue(rest string, line, col int) (yaml.Node, bool) {
	lead := 0
	for lead < len(rest) && rest[lead] == ' ' {
		lead++
	}
	v := strings.TrimRight(rest[lead:], " ")
	column := col + 1 + lead + 1
	if v == "" {
		return yaml.Node{}, false
	}
	switch v[0] {
	case '"':
		if len(v) < 2 || v[len(v)-1] != '"' {
			return yaml.Node{}, false
		}
		inner := v[1 : len(v)-1]
		if strings.ContainsAny(inner, "\"\\") || !printableText(inner) {
			return yaml.Node{}, false
		}
		return yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Tag: "!!str", Value: inner, Line: line, Column: column}, true
	case '\'', '[', ']', '{', '}', '|', '>', '&', '*', '!', '#', '@', '`', '%', ',', '?', '-', ':':
		return yaml.Node{}, false
	}
	if strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return yaml.Node{}, false
	}
	// Plain scalars: only text whose meaning is unambiguous goes the fast way.
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return yaml.Node{}, false
		} else if c >= 0x80 {
			if !printableText(v[i:]) {
				return yaml.Node{}, false
			}
			break
		}
	}
	tag, ok := plainTag(v)
	if !ok {
		return yaml.Node{}, false
	}
	return yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v, Line: line, Column: column}, true
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
