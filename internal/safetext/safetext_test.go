package safetext

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"pdf":                          "pdf",
		"Grüße, 世界":                    "Grüße, 世界",
		"\x1b[2J\x1b]0;owned\x07":      `\x1b[2J\x1b]0;owned\x07`,
		"a\nb\tc\rd":                   `a\nb\tc\rd`,
		"del\x7f":                      `del\x7f`,
		"c1 \u009b31m":                 `c1 \u009b31m`,
		"rtl \u202eexe.txt":            `rtl \u202eexe.txt`,
		"zero\u200bwidth \ufeff":       `zero\u200bwidth \ufeff`,
		"bad \xff\xfe utf8":            `bad \xff\xfe utf8`,
		"isolate \u2066x\u2069":        `isolate \u2066x\u2069`,
		"separator \u2028 \u2029 done": `separator \u2028 \u2029 done`,
	} {
		assert.Equal(t, want, Line(in), "%q", in)
	}
	assert.True(t, Safe("plain name-1"))
	assert.False(t, Safe("x\x1by"))
}

func TestText(t *testing.T) {
	assert.Equal(t, "line 1\n\tline 2\n", Text("line 1\n\tline 2\n"))
	assert.Equal(t, "a\\x1b[31mred\\r\nb", Text("a\x1b[31mred\r\nb"))
}
