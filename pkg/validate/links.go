package validate

import (
	"errors"
	"io/fs"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Link is a link target found in a Markdown body, with its position.
type Link struct {
	Target string
	// Line is 1-based within the body; Column is 1-based, in characters.
	Line, Column int
}

// BodyLinks returns the targets of inline links and images ([t](target),
// ![a](target)) and of link reference definitions ([id]: target) in a
// Markdown body, outside fenced code blocks and code spans.
func BodyLinks(body string) []Link {
	var out []Link
	fence := ""
	lineNo := 0
	for len(body) > 0 {
		line := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		lineNo++
		trimmed := strings.TrimLeft(line, " \t")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			continue // indented code
		}
		if !strings.Contains(line, "](") && !strings.HasPrefix(trimmed, "[") {
			continue
		}
		line = blankCodeSpans(line)
		// Reference definition: [id]: target
		if strings.HasPrefix(trimmed, "[") && !strings.HasPrefix(trimmed, "[^") {
			if end := strings.Index(trimmed, "]:"); end > 0 {
				rest := trimmed[end+2:]
				target := strings.TrimLeft(rest, " \t")
				if target != "" {
					if target[0] == '<' {
						if j := strings.IndexByte(target, '>'); j > 0 {
							target = target[1:j]
						}
					} else if j := strings.IndexAny(target, " \t"); j >= 0 {
						target = target[:j]
					}
					off := len(line) - len(rest) + (len(rest) - len(strings.TrimLeft(rest, " \t")))
					out = append(out, Link{Target: target, Line: lineNo, Column: utf8.RuneCountInString(line[:off]) + 1})
				}
			}
		}
		for i := 0; ; {
			j := strings.Index(line[i:], "](")
			if j < 0 {
				break
			}
			start := i + j + 2
			for start < len(line) && (line[start] == ' ' || line[start] == '\t') {
				start++
			}
			target, end := linkTarget(line[start:])
			if target != "" {
				out = append(out, Link{Target: target, Line: lineNo, Column: utf8.RuneCountInString(line[:start]) + 1})
			}
			i = start + end
			if end == 0 {
				i = start
			}
			if i >= len(line) {
				break
			}
		}
	}
	return out
}

// linkTarget reads the destination at the start of s (after "]("): <...> or
// a run without spaces with balanced parentheses. It returns the target and
// how many bytes it used.
func linkTarget(s string) (string, int) {
	if strings.HasPrefix(s, "<") {
		if j := strings.IndexByte(s, '>'); j > 0 {
			return s[1:j], j + 1
		}
		return "", 0
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return s[:i], i
			}
			depth--
		case ' ', '\t':
			return s[:i], i
		}
	}
	return "", 0
}

// blankCodeSpans replaces the content of `code spans` with spaces, keeping offsets.
func blankCodeSpans(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		ticks := strings.Repeat("`", n)
		end := strings.Index(string(b[i+n:]), ticks)
		if end < 0 {
			i += n
			continue
		}
		for k := i + n; k < i+n+end; k++ {
			b[k] = ' '
		}
		i += n + end + n
	}
	return string(b)
}

// localTarget turns a link target into a path inside the skill; ok is false
// for URLs, anchors, absolute paths and templates, which are not checked.
func localTarget(target string) (string, bool) {
	t := strings.TrimSpace(target)
	if t == "" || t[0] == '#' || t[0] == '/' || t[0] == '~' || strings.ContainsAny(t, "{}$") {
		return "", false
	}
	if i := strings.IndexAny(t, ":"); i >= 0 {
		if j := strings.IndexByte(t, '/'); j < 0 || i < j {
			return "", false // a scheme (https:, mailto:) or a drive letter
		}
	}
	if i := strings.IndexAny(t, "#?"); i >= 0 {
		t = t[:i]
	}
	if u, err := url.PathUnescape(t); err == nil {
		t = u
	}
	if t == "" {
		return "", false
	}
	return t, true
}

func checkReferences(c *checker) {
	body := c.doc.Body
	if !strings.Contains(body, "](") && !strings.Contains(body, "]:") {
		return
	}
	seen := map[string]bool{}
	for _, l := range BodyLinks(body) {
		p, ok := localTarget(l.Target)
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		line := c.doc.BodyLine + l.Line - 1
		clean, err := skill.CheckRelPath(p)
		if errors.Is(err, skill.ErrNotFound) {
			continue // an empty path: the skill folder itself
		}
		if err != nil {
			c.add("reference-missing", "", line, l.Column, "link to files inside the skill folder; it is installed on its own",
				"the link %q points outside the skill folder", l.Target)
			continue
		}
		if clean == "." {
			continue
		}
		if _, err := fs.Stat(c.t.fsys, clean); err != nil {
			c.add("reference-missing", "", line, l.Column, "", "the link %q points to %s, which is not in the skill", l.Target, clean)
		}
	}
}
