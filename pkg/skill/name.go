package skill

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
		if q := strconv.QuoteRune(r); !contains(bad, q) {
			bad = append(bad, q)
		}
	}
	if len(bad) > 0 {
		out = append(out, NameIssue{Kind: NameBadChars, Chars: bad})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
