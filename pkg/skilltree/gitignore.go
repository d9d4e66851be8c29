package skilltree

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ignoreRules are the .gitignore patterns that apply in one folder: its own
// file's, after those of the folders above it (a later match wins, as in git).
type ignoreRules struct {
	parent   *ignoreRules
	base     string // the folder of the .gitignore, absolute
	patterns []ignorePattern
}

type ignorePattern struct {
	re     *regexp.Regexp
	negate bool
}

// ignored reports whether the folder at abs is ignored.
func (r *ignoreRules) ignored(abs string) bool {
	ignored, _ := r.match(abs)
	return ignored
}

// match returns the verdict of the last pattern that matches abs (decided
// is false when none does).
func (r *ignoreRules) match(abs string) (ignored, decided bool) {
	if r == nil {
		return false, false
	}
	ignored, decided = r.parent.match(abs)
	rel, err := filepath.Rel(r.base, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return ignored, decided
	}
	rel = filepath.ToSlash(rel)
	for _, p := range r.patterns {
		if p.re.MatchString(rel) {
			ignored, decided = !p.negate, true
		}
	}
	return ignored, decided
}

// withFile returns the rules of dir: r plus dir/.gitignore when it has one.
func (r *ignoreRules) withFile(dir string) *ignoreRules {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || len(data) == 0 {
		return r
	}
	pats := parseGitignore(data)
	if len(pats) == 0 {
		return r
	}
	return &ignoreRules{parent: r, base: dir, patterns: pats}
}

// rulesAbove collects, when dir is in a git repository, its
// .git/info/exclude and the .gitignore files from the repository top down
// to the parent of dir (dir's own is read by the walk).
func rulesAbove(dir string) *ignoreRules {
	var above []string // dir's ancestors, nearest first, up to the top
	top := ""
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		above = append(above, parent)
		d = parent
	}
	if top == "" {
		return nil
	}
	var r *ignoreRules
	if data, err := os.ReadFile(filepath.Join(top, ".git", "info", "exclude")); err == nil {
		if pats := parseGitignore(data); len(pats) > 0 {
			r = &ignoreRules{base: top, patterns: pats}
		}
	}
	for i := len(above) - 1; i >= 0; i-- {
		r = r.withFile(above[i])
	}
	return r
}

// parseGitignore turns .gitignore lines into patterns (gitignore(5)):
// comments, negation, a trailing / for folders, a / elsewhere anchoring the
// pattern to the file's folder, and *, ?, [...] and ** wildcards. Only
// folders are asked about, so every pattern may match.
func parseGitignore(data []byte) []ignorePattern {
	var out []ignorePattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// trailing spaces are dropped unless escaped
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		negate := false
		if strings.HasPrefix(line, "!") {
			negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		line = strings.TrimSuffix(line, "/")
		if line == "" {
			continue
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		expr := globRegexp(line)
		if !anchored {
			expr = "(?:.*/)?" + expr
		}
		re, err := regexp.Compile("^" + expr + "$")
		if err != nil {
			continue // a pattern git would not understand either
		}
		out = append(out, ignorePattern{re: re, negate: negate})
	}
	return out
}

// globRegexp translates a gitignore glob into a regular expression.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(g[i:], "**") && i+2 == len(g):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteString(regexp.QuoteMeta("["))
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(string(g[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// Pattern is one exclude pattern in .gitignore syntax, relative to Base
// (the folder of the file that sets it).
type Pattern struct {
	Glob string
	Base string
}

// Matcher decides whether a folder is excluded by a list of patterns
// (config validate.exclude). The zero or nil Matcher excludes nothing.
type Matcher struct {
	rules []*ignoreRules
}

// NewMatcher compiles patterns; those sharing a Base are read together, so
// that a later "!pattern" takes back an earlier one as in .gitignore.
func NewMatcher(patterns []Pattern) *Matcher {
	m := &Matcher{}
	byBase := map[string]*ignoreRules{}
	for _, p := range patterns {
		pats := parseGitignore([]byte(p.Glob))
		if len(pats) == 0 {
			continue
		}
		r := byBase[p.Base]
		if r == nil {
			r = &ignoreRules{base: p.Base}
			byBase[p.Base] = r
			m.rules = append(m.rules, r)
		}
		r.patterns = append(r.patterns, pats...)
	}
	return m
}

// Excluded reports whether the folder at abs, or a folder above it, is
// excluded.
func (m *Matcher) Excluded(abs string) bool {
	if m == nil || len(m.rules) == 0 {
		return false
	}
	for d := abs; ; {
		for _, r := range m.rules {
			if r.ignored(d) {
				return true
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// excludes reports whether the folder at abs is excluded by a pattern
// (its parents were checked on the way down).
func (m *Matcher) excludes(abs string) bool {
	if m == nil {
		return false
	}
	for _, r := range m.rules {
		if r.ignored(abs) {
			return true
		}
	}
	return false
}

// CheckGlob reports why a pattern cannot be used ("" when it can).
func CheckGlob(g string) string {
	if strings.TrimSpace(g) == "" {
		return "the pattern is empty"
	}
	if strings.ContainsAny(g, "\n\r") {
		return "the pattern holds a line break"
	}
	if len(parseGitignore([]byte(g))) == 0 {
		return "the pattern matches nothing (a line starting with # is a comment; write \\# for a name that starts with #)"
	}
	return ""
}
