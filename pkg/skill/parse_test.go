package skill

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		rule string
		line int
	}{
		{"no frontmatter", "# Title\n\nBody\n", "frontmatter-missing", 1},
		{"blank line first", "\n---\nname: a\n---\n", "frontmatter-missing", 1},
		{"never closed", "---\nname: a\ndescription: b\n", "frontmatter-unclosed", 1},
		{"dots do not close", "---\nname: a\n...\nbody\n", "frontmatter-unclosed", 1},
		{"invalid yaml", "---\nname: [oops\n---\n", "yaml-invalid", 2},
		{"list frontmatter", "---\n- a\n- b\n---\n", "frontmatter-not-mapping", 2},
		{"empty frontmatter", "---\n---\nbody\n", "frontmatter-not-mapping", 2},
		{"scalar frontmatter", "---\njust text\n---\n", "frontmatter-not-mapping", 2},
		{"duplicate key", "---\nname: a\ndescription: b\nname: c\n---\n", "yaml-duplicate-key", 4},
		{"duplicate nested key", "---\nname: a\nmetadata:\n  x: 1\n  x: 2\n---\n", "yaml-duplicate-key", 5},
		{"nul byte", "---\nname: a\n---\nbo\x00dy\n", "binary-file", 4},
		{"not utf-8", "---\nname: a\ndescription: caf\xe9\n---\n", "not-utf8", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), "x/SKILL.md")
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "want a ParseError, got %v", err)
			assert.Equal(t, tt.rule, pe.Rule)
			assert.Equal(t, tt.line, pe.Line)
			assert.Contains(t, pe.Error(), "x/SKILL.md")
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	big := "---\nname: a\ndescription: b\n---\n" + strings.Repeat("x", MaxSkillMDSize)
	_, err := Parse([]byte(big), "SKILL.md")
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "file-too-large", pe.Rule)
	assert.Contains(t, pe.Msg, "2.0 MiB")
}

func TestParseDocument(t *testing.T) {
	in := "\ufeff---\r\nname: pdf\r\ndescription: Reads PDFs.\r\nmetadata:\r\n  version: 1.0\r\n---  \r\n# Title\r\n\r\nBody text.\r\n"
	doc, err := Parse([]byte(in), "SKILL.md")
	require.NoError(t, err)
	assert.True(t, doc.HasBOM)
	assert.True(t, doc.CRLF)
	assert.True(t, doc.ClosingSuffix)
	assert.Equal(t, 7, doc.BodyLine)
	assert.Equal(t, "# Title\n\nBody text.\n", doc.Body)
	name := doc.Field("name")
	require.NotNil(t, name)
	assert.Equal(t, 2, name.Line, "lines are file lines")
	assert.Equal(t, 7, name.Column)
	md := doc.Field("metadata")
	require.Equal(t, yaml.MappingNode, md.Kind)
	assert.Equal(t, "1.0", md.Content[1].Value, "scalars keep their source text")
	assert.Equal(t, 5, md.Content[1].Line)
}

func TestParseUnquotedColonRetry(t *testing.T) {
	in := "---\nname: helper\ndescription: Use this skill when: the user asks # really\n---\nBody\n"
	doc, err := Parse([]byte(in), "SKILL.md")
	require.NoError(t, err)
	assert.Equal(t, "Use this skill when: the user asks", doc.Field("description").Value)
	require.Len(t, doc.Diagnostics, 1)
	d := doc.Diagnostics[0]
	assert.Equal(t, "yaml-unquoted-colon", d.Rule)
	assert.Equal(t, SeverityWarning, d.Severity)
	assert.Equal(t, 3, d.Line)
	assert.True(t, doc.ColonFixed)
}

func TestParseAliasBombDoesNotExpand(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: bomb\ndescription: d\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 11; i++ { // 100 aliases: the most that are read
		b.WriteString("a")
		b.WriteString(string(rune('0' + i%10)))
		b.WriteString(strings.Repeat("x", i))
		b.WriteString(": &b")
		b.WriteString(strings.Repeat("x", i))
		b.WriteString(" [")
		prev := "a0"
		if i > 1 {
			prev = "b" + strings.Repeat("x", i-1)
		}
		b.WriteString(strings.Repeat("*"+prev+", ", 9))
		b.WriteString("*" + prev + "]\n")
	}
	b.WriteString("---\n")
	s, err := FromBytes([]byte(b.String()), "/x/bomb", "/x/bomb/SKILL.md", LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, "bomb", s.Name)
	assert.NotNil(t, s.Frontmatter["a0"])
}

// More aliases than MaxYAMLAliases are refused before anything expands
// them, naming the line of the first one over the limit.
func TestParseTooManyAliases(t *testing.T) {
	md := "---\nname: bomb\ndescription: d\nx: &x v\ny: [" + strings.Repeat("*x, ", MaxYAMLAliases) + "*x]\n---\n"
	_, err := FromBytes([]byte(md), "/x/bomb", "/x/bomb/SKILL.md", LoadOptions{})
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "yaml-too-complex", pe.Rule)
	assert.Equal(t, 5, pe.Line)
	assert.Contains(t, pe.Msg, "101 YAML aliases")
}

func TestSkillFields(t *testing.T) {
	in := `---
name: " trail "
description: >
  Folded
  text.
license: MIT
allowed-tools: Bash(git:*) Read
disable-model-invocation: true
mode: direct
timeout: 1500
permissions: [network, "env:TOKEN"]
metadata:
  version: 1.0
  author: Ann
  tags: a, b
  dangerous: "true"
  confirm: Sure?
---
# Heading

First   paragraph.

## Next
More.
`
	s, err := FromBytes([]byte(in), "/skills/trail", "/skills/trail/SKILL.md", LoadOptions{Source: SourceUser})
	require.NoError(t, err)
	assert.Equal(t, "trail", s.Name)
	assert.Equal(t, "user:trail", s.ID)
	assert.Equal(t, "Folded text.\n", s.Description)
	assert.Equal(t, []string{"Bash(git:*) Read"}, s.AllowedTools)
	assert.True(t, s.DisableModelInvocation)
	assert.Equal(t, ModeDirect, s.EffectiveMode())
	assert.Equal(t, int64(1500), s.Exec.TimeoutMS)
	assert.Equal(t, []string{"network", "env:TOKEN"}, s.Exec.Permissions)
	assert.Equal(t, "1.0", s.Exec.Version)
	assert.Equal(t, "Ann", s.Exec.Author)
	assert.Equal(t, []string{"a", "b"}, s.Exec.Tags)
	assert.True(t, s.Exec.Dangerous)
	assert.Equal(t, "Sure?", s.Exec.Confirm)
	assert.Equal(t, "Heading First   paragraph. Next More.", s.Summary)
	assert.Equal(t, true, s.Frontmatter["disable-model-invocation"])
	assert.Equal(t, "1500", s.Frontmatter["timeout"], "numbers keep their text")
	assert.Equal(t, map[string]any{"version": "1.0", "author": "Ann", "tags": "a, b", "dangerous": "true", "confirm": "Sure?"}, s.Frontmatter["metadata"])
}

func TestNameFallsBackToFolder(t *testing.T) {
	s, err := FromBytes([]byte("---\ndescription: d\n---\n"), "/p/my-skill", "/p/my-skill/SKILL.md", LoadOptions{Plugin: "tools", Source: SourcePlugin})
	require.NoError(t, err)
	assert.Equal(t, "my-skill", s.Name)
	assert.Equal(t, "tools:my-skill", s.ID)
}

func TestSummarize(t *testing.T) {
	assert.Equal(t, "", Summarize("\n\n", 200))
	assert.Equal(t, "A B", Summarize("# A\n\n\nB\n", 200))
	assert.Equal(t, "abc", Summarize("abcdef", 3))
	assert.Equal(t, "été", Summarize("## été à", 3), "counts characters, not bytes")
	long := strings.Repeat("words", 100)
	assert.Len(t, []rune(Summarize(long, 200)), 200)
}

func TestEstimateTokens(t *testing.T) {
	assert.Equal(t, 0, EstimateTokens(0))
	assert.Equal(t, 1, EstimateTokens(1))
	assert.Equal(t, 250, EstimateTokens(1000))
}

// FuzzFastFrontmatter checks that the fast path builds exactly the tree
// yaml.v3 builds whenever it accepts an input, and that Parse never panics.
func FuzzFastFrontmatter(f *testing.F) {
	seeds := []string{
		"name: a\ndescription: b\n",
		"name: a\nmetadata:\n  version: \"1.0\"\n  author: x\n",
		"key:\nother: 1\n",
		"a: true\nb: null\nc: ~\nd: 12\ne: 012\nf: yes\n",
		"name: x # comment\n",
		"name: \"quoted\"\ndesc: it's fine\n",
		"k: v\n  continued\n",
		"m:\n  a: 1\n   b: 2\n",
		"123: x\ntrue: y\n",
		"name: a---b\n",
		"x: -1\ny: +1\nz: .5\n",
		"d: >\n  folded\n  text\n\n  para\nn: 1\n",
		"d: >-\n  a\n  b\n",
		"d: |\n  lit\n    more\n\n  end\n\nx: y\n",
		"d: |-\n  a\n",
		"tags:\n  - a\n  - \"b\"\n  - 'c''d'\nn: x\n",
		"tags:\n- a\n- b\n",
		"t: [a, \"b c\", 1.5]\nu: []\n",
		"requires: {mcp: [rube], n: 2}\n",
		"# comment\nname: x # trailing\nmetadata:\n  # inside\n  a: \"1\" # q\n",
		"m:\n    deep:\n      deeper: 1\n    back: 2\nz: 2024-01-02\n",
		"v: 1.4.0\nw: 1e3\nx: 0x1F\ny: 1_000\nz: 0o17\n",
		"e: \"a\\nb\\u00e9\\\"\"\n",
		"k:\n  - |\n    block item\n  - x\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		data := []byte("---\n" + src + "\n---\nbody\n")
		_, _ = Parse(data, "SKILL.md")
		// Listings load without nodes; they must see the same skill.
		full, errFull := FromBytes(data, "/x/s", "/x/s/SKILL.md", LoadOptions{})
		light, errLight := FromBytes(data, "/x/s", "/x/s/SKILL.md", LoadOptions{DropBody: true})
		if (errFull == nil) != (errLight == nil) {
			t.Fatalf("full load error %v, light load error %v for %q", errFull, errLight, src)
		}
		if errFull == nil {
			full.Frontmatter, full.Doc, full.Body, full.Summary, full.Metadata = nil, nil, "", "", nil
			light.Doc = nil
			if !reflect.DeepEqual(full, light) {
				t.Fatalf("light load differs for %q:\nfull  %+v\nlight %+v", src, full, light)
			}
		}
		if !utf8.ValidString(src) {
			return // Parse refuses invalid UTF-8 before any YAML is read
		}
		fast, ok := fastFrontmatter(src)
		if !ok {
			return
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("fast path accepted what yaml.v3 rejects (%v): %q", err, src)
		}
		if len(doc.Content) != 1 {
			t.Fatalf("yaml.v3 found no document in %q", src)
		}
		if diff := compareNodes(fast, doc.Content[0]); diff != "" {
			t.Fatalf("fast path differs from yaml.v3 on %q: %s", src, diff)
		}
	})
}

func compareNodes(a, b *yaml.Node) string {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Style != b.Style {
		return "node " + a.Value + " / " + b.Value + ": kind, tag, value or style differ (" + a.Tag + " vs " + b.Tag + ")"
	}
	if a.Line != b.Line || (a.Column != b.Column && !(a.Kind == yaml.ScalarNode && a.Tag == "!!null")) {
		return "position of " + a.Value + " differs"
	}
	if len(a.Content) != len(b.Content) {
		return "children of " + a.Value + " differ in number"
	}
	for i := range a.Content {
		if d := compareNodes(a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// A skill's timeout is range-checked before use (SPEC §7, §15): 1 ms to 24 h.
func TestParseTimeoutMSRange(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "30000": 30000, "86400000": 86400000} {
		got, err := ParseTimeoutMS(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	for _, in := range []string{"0", "-5", "86400001", "99999999999999999999", "9223372036854775807", "1.5", "soon", ""} {
		_, err := ParseTimeoutMS(in)
		assert.Error(t, err, in)
	}
	s, err := FromBytes([]byte("---\nname: t\ndescription: d\ntimeout: 99999999999999999999\n---\n"), "/x/t", "/x/t/SKILL.md", LoadOptions{})
	require.NoError(t, err)
	assert.Zero(t, s.Exec.TimeoutMS, "an out-of-range timeout is never used")
}

// A listing parses the frontmatter in place, in a buffer that is read over
// for the next skill: what it keeps must not change when the buffer does.
func TestListingLoadKeepsNothingOfTheBuffer(t *testing.T) {
	src := "---\nname: Keep Me\ndescription: >-\n  Folded\n  text.\nlicense: MIT\ncompatibility: anywhere\n" +
		"allowed-tools: [Read, Write]\nmode: sandbox\nentrypoint: scripts/x.sh\ntimeout: 1500\npermissions:\n  - network\n  - env:TOKEN\n" +
		"dangerous: true\nconfirm: Sure?\nauthor: Ann\nversion: \"1.2\"\ntags: a, b\ncategory: tools\nmetadata:\n  k: v\n  other: \"x y\"\n---\nBody.\n"
	for _, fm := range []string{src, strings.Replace(src, "author: Ann\n", "author: Ann: colon\n", 1)} {
		buf := []byte(fm)
		light, err := FromBytes(buf, "/x/keep", "/x/keep/SKILL.md", LoadOptions{DropBody: true})
		require.NoError(t, err)
		full, err := FromBytes([]byte(fm), "/x/keep", "/x/keep/SKILL.md", LoadOptions{})
		require.NoError(t, err)
		for i := range buf {
			buf[i] = '#'
		}
		full.Frontmatter, full.Doc, full.Body, full.Summary, full.Metadata = nil, nil, "", "", nil
		assert.Equal(t, full, light)
	}
}

func TestKnownSlotMatchesKnownKeys(t *testing.T) {
	for i, k := range knownKeys {
		assert.Equal(t, i, knownSlot(k), k)
	}
	assert.Equal(t, -1, knownSlot("other"))
}

// printableText looks at bytes; it decides as a check of each character would.
func TestPrintableTextMatchesTheCharacterRule(t *testing.T) {
	allowed := func(r rune) bool {
		switch {
		case r == '\t' || (r >= 0x20 && r < 0x7f):
		case r >= 0xA0 && r <= 0xD7FF && r != 0x2028 && r != 0x2029:
		case r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF:
		case r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
		return true
	}
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not encodable in UTF-8
		}
		s := "a" + string(r) + "b"
		if got, want := printableText(s), allowed(r); got != want {
			t.Fatalf("U+%04X: printableText %v, want %v", r, got, want)
		}
	}
}
