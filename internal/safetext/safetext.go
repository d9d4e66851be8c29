// Package safetext makes text from strangers safe to print on a terminal
// (SPEC §15): control characters, escape sequences, bidirectional
// overrides and invalid UTF-8 in skill names, descriptions, archive entry
// names, remote messages and the like are shown as visible escapes
// (\x1b, \u202e) instead of being interpreted by the terminal.
//
// It is the one sanitiser every command uses for what a human reads; JSON
// output needs none (encoding/json escapes control characters itself).
package safetext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Line returns s for a single line of output: every control character,
// line breaks and tabs included, is made visible.
func Line(s string) string { return clean(s, false) }

// Text returns s for multi-line output: line feeds and tabs stay, every
// other control character is made visible.
func Text(s string) string { return clean(s, true) }

// Safe reports whether s prints as it is on one line.
func Safe(s string) bool { return !needs(s, false) }

func needs(s string, multi bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 {
			if multi && (c == '\n' || c == '\t') {
				continue
			}
			return true
		}
		if c >= 0x7f {
			return true // DEL, or non-ASCII: looked at rune by rune
		}
	}
	return false
}

func clean(s string, multi bool) string {
	if !needs(s, multi) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case multi && (c == '\n' || c == '\t'):
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\r':
				b.WriteString(`\r`)
			case c < 0x20 || c == 0x7f:
				b.WriteString(`\x`)
				b.WriteString(hex2(c))
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(c))
		case unsafeRune(r):
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", max(0, 4-len(h))))
			b.WriteString(h)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune: C1 controls (a terminal may read U+009B as CSI), and the
// invisible characters that reorder or hide text (bidirectional controls,
// zero-width characters, the byte-order mark, line and paragraph separators).
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x2028, r == 0x2029, r == 0x061c, r == 0xfeff:
		return true
	}
	return false
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
