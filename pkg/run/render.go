package run

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RenderContext is what direct mode fills placeholders from.
type RenderContext struct {
	Input     map[string]any
	Args      []string
	Cwd       string
	SkillDir  string
	SkillName string
	Now       time.Time
	// AllowMissing leaves placeholders without a value as written.
	AllowMissing bool
}

// MissingInputError lists every placeholder that had no value.
type MissingInputError struct {
	Skill   string
	Missing []string // input names, in order of first use (a.b for {{input.a.b}})
	Unknown []string // {{system.x}} names that do not exist
}

func (e *MissingInputError) Error() string { return e.Text("") }

// Text is the message, with hint after the list of missing names.
func (e *MissingInputError) Text(hint string) string {
	var parts []string
	if len(e.Missing) > 0 {
		parts = append(parts, "missing input for "+strings.Join(e.Missing, ", ")+hint)
	}
	if len(e.Unknown) > 0 {
		parts = append(parts, fmt.Sprintf("unknown placeholder %s (known: {{system.cwd}}, {{system.timestamp}}, {{system.date}}, {{system.skillDir}}, {{system.skillName}})",
			strings.Join(e.Unknown, ", ")))
	}
	return e.Skill + ": " + strings.Join(parts, "; ")
}

// Render replaces the placeholders of a direct-mode body (SPEC §7):
// {{input.a.b}} (objects and arrays as compact JSON), {{input}} (the whole
// input), {{system.cwd|timestamp|date|skillDir|skillName}}, Claude Code's
// $ARGUMENTS, $ARGUMENTS[N], $N (0-based; a missing one stays as written) and
// ${CLAUDE_SKILL_DIR}. \{{ is a literal {{. Other {{...}} text is left alone.
// When arguments are given and the body uses none of the argument forms, a
// final "ARGUMENTS: ..." line is appended, as Claude Code does.
func Render(body string, rc RenderContext) (string, error) {
	var b strings.Builder
	b.Grow(min(len(body)+64, RenderCap))
	var missing, unknown []string
	seen := map[string]bool{}
	usedArgs := usesArguments(body)
	note := func(list *[]string, name string) {
		if !seen[name] {
			seen[name] = true
			*list = append(*list, name)
		}
	}
	tooLarge := func() (string, error) {
		return "", fmt.Errorf("%s: the rendered text would be larger than %d MiB (the body, the input or the arguments are too large)", rc.SkillName, RenderCap>>20)
	}
	// closeAt is the next "}}" at or after the scan position (-1: none
	// left); it only moves forward, so the scan stays linear.
	closeAt, closeFrom := 0, -1
	nextClose := func(from int) int {
		if closeFrom >= 0 && (closeAt < 0 || closeAt >= from) {
			return closeAt
		}
		closeFrom = from
		if j := strings.Index(body[from:], "}}"); j >= 0 {
			closeAt = from + j
		} else {
			closeAt = -1
		}
		return closeAt
	}
	for i := 0; i < len(body); {
		if b.Len() > RenderCap {
			return tooLarge()
		}
		c := body[i]
		switch {
		case c == '\\' && strings.HasPrefix(body[i+1:], "{{"):
			b.WriteString("{{")
			i += 3
		case c == '{' && strings.HasPrefix(body[i:], "{{"):
			end := nextClose(i + 2)
			if end < 0 || end-(i+2) > maxPlaceholder {
				// No "}}" close enough: not a placeholder.
				b.WriteString("{{")
				i += 2
				continue
			}
			raw := body[i : end+2]
			expr := strings.TrimSpace(body[i+2 : end])
			val, kind := lookup(expr, rc)
			switch kind {
			case found:
				if b.Len()+len(val) > RenderCap {
					return tooLarge()
				}
				b.WriteString(val)
			case notPlaceholder:
				// Not ours (a template of some other kind): keep "{{" and go on
				// scanning after it, so that a later placeholder still counts.
				b.WriteString("{{")
				i += 2
				continue
			case missingInput:
				note(&missing, strings.TrimPrefix(strings.TrimPrefix(expr, "input"), "."))
				b.WriteString(raw)
			case unknownSystem:
				note(&unknown, "{{"+expr+"}}")
				b.WriteString(raw)
			}
			i += len(raw)
		case c == '$':
			n, text, ok := dollar(body[i:], rc)
			if !ok {
				b.WriteByte(c)
				i++
				continue
			}
			if b.Len()+len(text) > RenderCap {
				return tooLarge()
			}
			b.WriteString(text)
			i += n
		default:
			j := i + 1
			for j < len(body) && body[j] != '\\' && body[j] != '{' && body[j] != '$' {
				j++
			}
			b.WriteString(body[i:j])
			i = j
		}
	}
	if (len(missing) > 0 || len(unknown) > 0) && !rc.AllowMissing {
		return "", &MissingInputError{Skill: rc.SkillName, Missing: missing, Unknown: unknown}
	}
	out := b.String()
	if len(rc.Args) > 0 && !usedArgs {
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += "\nARGUMENTS: " + strings.Join(rc.Args, " ") + "\n"
	}
	if len(out) > RenderCap {
		return tooLarge()
	}
	return out, nil
}

// Limits of direct-mode rendering (SPEC §7): the output, the length of a
// {{...}} placeholder, and the argument numbers $N and $ARGUMENTS[N] accept.
const (
	RenderCap      = 8 << 20
	maxPlaceholder = 512
	maxArgIndex    = 999
)

type lookupKind int

const (
	found lookupKind = iota
	notPlaceholder
	missingInput
	unknownSystem
)

func lookup(expr string, rc RenderContext) (string, lookupKind) {
	switch {
	case expr == "input":
		return compactJSON(orEmpty(rc.Input)), found
	case strings.HasPrefix(expr, "input."):
		path := strings.Split(expr[len("input."):], ".")
		for _, p := range path {
			if !validName(p) {
				return "", notPlaceholder
			}
		}
		v, ok := walk(rc.Input, path)
		if !ok {
			return "", missingInput
		}
		return valueText(v), found
	case strings.HasPrefix(expr, "system."):
		name := expr[len("system."):]
		if !validName(name) {
			return "", notPlaceholder
		}
		switch name {
		case "cwd":
			return rc.Cwd, found
		case "timestamp":
			return strconv.FormatInt(rc.Now.UnixMilli(), 10), found
		case "date":
			return rc.Now.Format(time.RFC3339), found
		case "skillDir":
			return rc.SkillDir, found
		case "skillName":
			return rc.SkillName, found
		}
		return "", unknownSystem
	}
	return "", notPlaceholder
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// walk follows a dotted path through objects (and arrays, by index).
func walk(v any, path []string) (any, bool) {
	cur := any(v)
	if m, ok := cur.(map[string]any); ok && m == nil {
		return nil, false
	}
	for _, p := range path {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[p]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// valueText renders an input value: strings as they are, numbers as
// written, booleans and null as JSON words, objects and arrays as compact JSON.
func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return compactJSON(v)
}

// dollar handles $ARGUMENTS, $ARGUMENTS[N], $N and ${CLAUDE_SKILL_DIR} at the
// start of s. It returns the bytes consumed and the replacement; ok is false
// when s does not start with one of them (or names an argument not given).
func dollar(s string, rc RenderContext) (int, string, bool) {
	const skillDir = "${CLAUDE_SKILL_DIR}"
	if strings.HasPrefix(s, skillDir) {
		return len(skillDir), rc.SkillDir, true
	}
	if strings.HasPrefix(s, "$ARGUMENTS") {
		rest := s[len("$ARGUMENTS"):]
		if strings.HasPrefix(rest, "[") {
			digits := 1
			for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
				digits++
			}
			if digits > 1 && digits < len(rest) && rest[digits] == ']' {
				// $ARGUMENTS[N]: only a small N given on the command line;
				// anything else stays as written (never $ARGUMENTS + "[N]").
				n, err := strconv.Atoi(rest[1:digits])
				if err == nil && n <= maxArgIndex && n < len(rc.Args) {
					return len("$ARGUMENTS") + digits + 1, rc.Args[n], true
				}
				return 0, "", false
			}
		}
		if rest != "" && isWordByte(rest[0]) {
			return 0, "", false
		}
		return len("$ARGUMENTS"), strings.Join(rc.Args, " "), true
	}
	j := 1
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 1 || (j < len(s) && isWordByte(s[j])) {
		return 0, "", false
	}
	n, err := strconv.Atoi(s[1:j])
	if err != nil || n > maxArgIndex || n >= len(rc.Args) {
		return 0, "", false
	}
	return j, rc.Args[n], true
}

// usesArguments reports whether body has an argument placeholder ($ARGUMENTS, $N).
func usesArguments(body string) bool {
	for i := strings.IndexByte(body, '$'); i >= 0; {
		rest := body[i+1:]
		if strings.HasPrefix(rest, "ARGUMENTS") || rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return true
		}
		j := strings.IndexByte(rest, '$')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
