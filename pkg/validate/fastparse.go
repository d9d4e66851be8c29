package validate

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/skillctl/skillctl/pkg/skill"
)

// parseSkill parses SKILL.md content like skill.Parse. Most frontmatter is a
// handful of "key: value" lines; fastParse reads that shape directly, and
// anything else goes to skill.Parse. FuzzFastParse checks that both give the
// same document whenever fastParse answers.
func parseSkill(data []byte, file string) (*skill.Document, error) {
	if doc, ok := fastParse(data); ok {
		return doc, nil
	}
	return skill.Parse(data, file)
}

// fastParse returns the document and true when the content is in the simple
// shape it knows, else false.
func fastParse(data []byte) (*skill.Document, bool) {
	if len(data) > skill.MaxSkillMDSize || bytes.IndexByte(data, 0) >= 0 || bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) ||
		bytes.IndexByte(data, '\r') >= 0 || !utf8.Valid(data) {
		return nil, false
	}
	text := string(data)
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || first != "---" {
		return nil, false
	}
	// The closing line: exactly "---" (lines with trailing blanks go the slow way).
	end := -1
	for off := 0; off < len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, " \t\r") == "---" {
			if line != "---" {
				return nil, false
			}
			end = off
			break
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	if end < 0 {
		return nil, false
	}
	fm := rest[:end]
	body := rest[end+3:]
	if strings.HasPrefix(body, "\n") {
		body = body[1:]
	} else if body != "" {
		return nil, false
	}
	root, ok := fastYAML(fm)
	if !ok {
		return nil, false
	}
	return &skill.Document{Frontmatter: fm, Root: root, Body: body, BodyLine: 3 + strings.Count(fm, "\n")}, true
}

// fastYAML reads frontmatter made of top-level "key: scalar" lines, and keys
// holding one indented block of "key: scalar" lines or "- scalar" items.
// Scalars are plain (resolving to strings, true/false or null) or quoted
// without escapes. Line numbers are file lines (frontmatter line 1 is file line 2).
func fastYAML(fm string) (*yaml.Node, bool) {
	if fm == "" || !fastPrintable(fm) {
		return nil, false
	}
	lines := strings.Split(strings.TrimSuffix(fm, "\n"), "\n")
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	keys := map[string]bool{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		lineNo := i + 2
		if line == "" {
			continue
		}
		key, val, ok := fastKeyValue(line)
		if !ok || keys[key] {
			return nil, false
		}
		keys[key] = true
		k := fastKey(key, lineNo, 1)
		if k == nil {
			return nil, false
		}
		if root.Line == 0 {
			root.Line, root.Column = lineNo, 1
		}
		var v *yaml.Node
		if val != "" {
			v = fastScalar(val, lineNo, utf8.RuneCountInString(line[:len(line)-len(val)])+1)
			if v == nil {
				return nil, false
			}
		} else {
			// An indented block follows: all its lines have the same indent.
			j := i + 1
			for j < len(lines) && strings.HasPrefix(lines[j], " ") {
				j++
			}
			if j == i+1 {
				return nil, false // an empty value: leave null positions to yaml.v3
			}
			v = fastBlock(lines[i+1:j], i+3)
			if v == nil {
				return nil, false
			}
			i = j - 1
		}
		root.Content = append(root.Content, k, v)
	}
	if len(root.Content) == 0 {
		return nil, false
	}
	return root, true
}

// fastBlock reads an indented mapping or list; first is the file line of lines[0].
func fastBlock(lines []string, first int) *yaml.Node {
	indent := len(lines[0]) - len(strings.TrimLeft(lines[0], " "))
	if indent == len(lines[0]) {
		return nil // a line of blanks
	}
	pre := lines[0][:indent]
	var n *yaml.Node
	if strings.HasPrefix(lines[0][indent:], "- ") {
		n = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: first, Column: indent + 1}
		for i, l := range lines {
			if !strings.HasPrefix(l, pre+"- ") {
				return nil
			}
			item := l[indent+2:]
			if item == "" || item[0] == ' ' {
				return nil
			}
			v := fastScalar(item, first+i, utf8.RuneCountInString(l[:indent+2])+1)
			if v == nil {
				return nil
			}
			n.Content = append(n.Content, v)
		}
		return n
	}
	n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: first, Column: indent + 1}
	keys := map[string]bool{}
	for i, l := range lines {
		if len(l) <= indent || !strings.HasPrefix(l, pre) || l[indent] == ' ' {
			return nil
		}
		key, val, ok := fastKeyValue(l[indent:])
		if !ok || val == "" || keys[key] {
			return nil
		}
		keys[key] = true
		k := fastKey(key, first+i, indent+1)
		v := fastScalar(val, first+i, utf8.RuneCountInString(l[:len(l)-len(val)])+1)
		if k == nil || v == nil {
			return nil
		}
		n.Content = append(n.Content, k, v)
	}
	return n
}

// fastKeyValue splits "key: value" (or "key:") where key is a simple name.
func fastKeyValue(line string) (string, string, bool) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || (i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.')) {
			i++
			continue
		}
		break
	}
	if i == 0 || i >= len(line) || line[i] != ':' {
		return "", "", false
	}
	key, rest := line[:i], line[i+1:]
	if rest == "" {
		return key, "", true
	}
	if rest[0] != ' ' {
		return "", "", false
	}
	val := strings.TrimLeft(rest, " ")
	if val == "" {
		return "", "", false // trailing blanks after the colon
	}
	return key, val, true
}

func fastKey(key string, line, col int) *yaml.Node {
	tag := plainTag(key)
	if tag != "!!str" {
		return nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: key, Line: line, Column: col}
}

// fastScalar reads a scalar that ends its line, or returns nil when it is not
// in the simple shape.
func fastScalar(s string, line, col int) *yaml.Node {
	switch s[0] {
	case '"', '\'':
		q := s[0]
		if len(s) < 2 || s[len(s)-1] != q {
			return nil
		}
		inner := s[1 : len(s)-1]
		if strings.IndexByte(inner, q) >= 0 || strings.IndexByte(inner, '\\') >= 0 {
			return nil
		}
		style := yaml.DoubleQuotedStyle
		if q == '\'' {
			style = yaml.SingleQuotedStyle
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: inner, Line: line, Column: col}
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`':
		return nil
	}
	if s[len(s)-1] == ' ' || s[len(s)-1] == ':' || strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return nil
	}
	tag := plainTag(s)
	if tag == "" {
		return nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s, Line: line, Column: col}
}

// plainTag is the tag yaml.v3 resolves a plain scalar to, for the strings,
// booleans and nulls it can tell apart without parsing numbers; "" when the
// scalar might be a number, a timestamp or a special float.
func plainTag(s string) string {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool"
	case "", "~", "null", "Null", "NULL":
		return "!!null"
	case "<<":
		return ""
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '+', c == '-', c == '.':
		return ""
	}
	return "!!str"
}

// fastPrintable accepts the characters yaml.v3 reads without complaint: no
// control characters (not even tabs), no byte order mark, no 4-byte UTF-8.
func fastPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == '\n' || (b >= 0x20 && b <= 0x7E):
		case b < 0x80:
			return false
		case b == 0xC2:
			if i+1 >= len(s) || s[i+1] < 0xA0 {
				return false
			}
		case b > 0xC2 && b < 0xED, b == 0xEE:
		case b == 0xED:
			if i+1 >= len(s) || s[i+1] >= 0xA0 {
				return false
			}
		case b == 0xEF:
			if i+2 >= len(s) || (s[i+1] == 0xBB && s[i+2] == 0xBF) || (s[i+1] == 0xBF && (s[i+2] == 0xBE || s[i+2] == 0xBF)) {
				return false
			}
		case b >= 0x80 && b <= 0xBF:
			// a continuation byte of a sequence already accepted
		default:
			return false
		}
	}
	return true
}
