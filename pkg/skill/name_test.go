package skill

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNameIssues(t *testing.T) {
	kinds := func(name string) []string {
		var out []string
		for _, is := range NameIssues(name) {
			out = append(out, is.Kind)
		}
		return out
	}
	assert.Empty(t, kinds("pdf-tools"))
	assert.Empty(t, kinds("навык"), "letters of any script")
	assert.Empty(t, kinds("技能"))
	assert.Equal(t, []string{NameUppercase}, kinds("MySkill"))
	assert.Equal(t, []string{NameHyphenEnd}, kinds("-x"))
	assert.Equal(t, []string{NameDoubleHyphen}, kinds("a--b"))
	assert.Equal(t, []string{NameTooLong}, kinds(strings.Repeat("a", 65)))
	assert.Empty(t, kinds(strings.Repeat("a", 64)))
	is := NameIssues("my_skill.x_")
	assert.Equal(t, NameBadChars, is[0].Kind)
	assert.Equal(t, []string{"'_'", "'.'"}, is[0].Chars, "each bad character once, in order")
	assert.Equal(t, []string{NameUppercase, NameHyphenEnd, NameDoubleHyphen, NameBadChars}, kinds("Bad_Name--"))
}
