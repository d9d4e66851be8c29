package skill

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxNameLength is the longest name the specification allows, in characters.
const MaxNameLength = 64

// Kinds of NameIssue.
const (
	NameTooLong      = "too-long"
	NameUppercase    = "uppercase"
	NameHyphenEnd    = "hyphen-end"
	NameDoubleHyphen = "double-hyphen"
	NameBadChars     = "bad-chars"
)

// NameIssue is one way a name breaks the specification's name rules.
type NameIssue struct {
	Kind string
	// Length is the name's length in characters (NameTooLong); Lower its
	// lowercase form (NameUppercase); Chars the offending characters, quoted
	// and each once (NameBadChars).
	Length int
	Lower  string
	Chars  []string
}

// NameIssues checks a name (already NFKC-normalised by the caller) against
// the specification: at most MaxNameLength characters, lowercase, letters,
// digits and hyphens only, no hyphen at either end and none doubled.
func NameIssues(name string) []NameIssue {
	var out []NameIssue
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		out = append(out, NameIssue{Kind: NameTooLong, Length: n})
	}
	if lower := strings.ToLower(name); lower != name {
		out = append(out, NameIssue{Kind: NameUppercase, Lower: lower})
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		out = append(out, NameIssue{Kind: NameHyphenEnd})
	}
	if strings.Contains(name, "--") {
		out = append(out, NameIssue{Kind: NameDoubleHyphen})
	}
	var bad []string
	for _, r := range name {
		if r == '-' || unicode.IsLetter(r) || unicode.IsNumber(r) {
			continue
		}
		if q := strconv.QuoteRune(r); !slices.Contains(bad, q) {
			bad = append(bad, q)
		}
	}
	if len(bad) > 0 {
		out = append(out, NameIssue{Kind: NameBadChars, Chars: bad})
	}
	return out
}

// NameError is a skill name the specification does not allow.
type NameError struct {
	Name    string
	Reasons []string
	// IsPath is set when the name holds a path separator.
	IsPath bool
}

func (e *NameError) Error() string {
	return fmt.Sprintf("invalid skill name %q: %s", e.Name, strings.Join(e.Reasons, "; "))
}

// CheckName checks a skill name against the Agent Skills rules: at most 64
// characters (code points), lowercase letters, digits and hyphens only, no
// hyphen at either end and no two in a row, and written in Unicode NFKC form
// (the form the name is compared to its folder in). It returns a *NameError.
func CheckName(name string) error {
	if strings.TrimSpace(name) == "" {
		return &NameError{Name: name, Reasons: []string{"a skill needs a name"}}
	}
	if strings.ContainsAny(name, `/\`) {
		return &NameError{Name: name, Reasons: []string{"it is a path, not a name"}, IsPath: true}
	}
	var reasons []string
	if nfkc := norm.NFKC.String(name); nfkc != name {
		reasons = append(reasons, fmt.Sprintf("it is not in Unicode NFKC form; write it as %q", nfkc))
	}
	for _, is := range NameIssues(name) {
		switch is.Kind {
		case NameTooLong:
			reasons = append(reasons, fmt.Sprintf("it is %d characters long; the limit is %d", is.Length, MaxNameLength))
		case NameUppercase:
			reasons = append(reasons, "it must be lowercase")
		case NameHyphenEnd:
			reasons = append(reasons, "it cannot start or end with a hyphen")
		case NameDoubleHyphen:
			reasons = append(reasons, "it cannot contain two hyphens in a row")
		case NameBadChars:
			reasons = append(reasons, "only letters, digits and hyphens are allowed, not "+strings.Join(is.Chars, ", "))
		}
	}
	if len(reasons) > 0 {
		if s := ValidName(name); s != "" && s != name {
			reasons[len(reasons)-1] += "; use " + s
		}
		return &NameError{Name: name, Reasons: reasons}
	}
	return nil
}

// NameKey is the form of a name that decides whether two names are the
// same: its NFKC normalisation, so that "café" written two ways, or a
// fullwidth "ｐｄｆ" and "pdf", are one name (SPEC §15).
func NameKey(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return norm.NFKC.String(name)
		}
	}
	return name
}

// ValidName is name when it is a valid skill name, else the valid name
// closest to it, for hints: its slug, cut to the length limit ("" when it
// has no letter or digit of a-z0-9).
func ValidName(name string) string {
	if len(NameIssues(name)) == 0 {
		return name
	}
	s := Slug(name)
	if len(s) > MaxNameLength {
		s = strings.TrimRight(s[:MaxNameLength], "-")
	}
	return s
}

// Slug is the folder name install gives a skill called name (SPEC §6):
// lowercase, every run of characters outside [a-z0-9] one dash, no dash at
// either end ("Toggl Automation" → "toggl-automation", "-2chat-automation"
// → "2chat-automation"). A name that is already valid is its own slug; a
// name without a letter or digit of a-z0-9 gives "".
func Slug(name string) string {
	b := make([]byte, 0, len(name))
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && len(b) > 0 {
				b = append(b, '-')
			}
			dash = false
			b = append(b, byte(r))
			continue
		}
		dash = true
	}
	return string(b)
}
