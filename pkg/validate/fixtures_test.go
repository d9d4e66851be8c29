package validate

import (
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ruleIDs lists a result's findings as "E:rule", "W:rule", "I:rule", sorted.
func ruleIDs(res *Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, strings.ToUpper(f.Severity[:1])+":"+f.Rule)
	}
	sort.Strings(out)
	return out
}

func hasError(ids []string) bool {
	for _, id := range ids {
		if strings.HasPrefix(id, "E:") {
			return true
		}
	}
	return false
}

// fixtureCases are the folders under testdata: the cases of the conformance
// table (NN-*) and one per skillctl rule (rule-*), with the findings expected
// under each profile. all: the same under every profile.
var fixtureCases = []struct {
	dir                string
	all                []string
	spec, def, cc, api []string
}{
	{dir: "01-valid/my-skill", all: nil},
	{dir: "02-no-frontmatter/my-skill", all: []string{"E:frontmatter-missing"}},
	{dir: "03-unclosed/my-skill", all: []string{"E:frontmatter-unclosed"}},
	{dir: "04-dots-close/my-skill", all: []string{"E:frontmatter-unclosed"}},
	{dir: "05-yaml-invalid/my-skill", all: []string{"E:yaml-invalid"}},
	{dir: "06-list/my-skill", all: []string{"E:frontmatter-not-mapping"}},
	{dir: "07-empty/my-skill", all: []string{"E:frontmatter-not-mapping"}},
	{dir: "08-bom/my-skill", spec: []string{"E:bom"}, def: []string{"W:bom"}, cc: []string{"W:bom"}, api: []string{"W:bom"}},
	{dir: "09-blank-line/my-skill", all: []string{"E:frontmatter-missing"}},
	{dir: "10-crlf/my-skill", all: nil},
	{dir: "11-no-skill-md/my-skill", all: []string{"E:skill-md-missing"}},
	{dir: "12-lowercase/my-skill", all: []string{"W:skill-md-lowercase"}},
	{dir: "14-not-a-skill/notes.txt", all: []string{"E:not-a-skill"}},
	{dir: "16-unquoted-colon/my-skill", spec: []string{"E:yaml-unquoted-colon"}, def: []string{"W:yaml-unquoted-colon"}, cc: []string{"W:yaml-unquoted-colon"}, api: []string{"W:yaml-unquoted-colon"}},
	{dir: "17-flow-mapping/my-skill", spec: []string{"E:yaml-flow-style"}, def: []string{"I:yaml-flow-style"}, cc: []string{"I:yaml-flow-style"}, api: []string{"I:yaml-flow-style"}},
	{dir: "18-flow-list/my-skill", spec: []string{"E:yaml-flow-style", "W:allowed-tools-list"}, def: []string{"I:yaml-flow-style", "W:allowed-tools-list"}, cc: []string{"I:allowed-tools-list", "I:yaml-flow-style"}, api: []string{"I:yaml-flow-style", "W:allowed-tools-list"}},
	{dir: "19-anchor/my-skill", spec: []string{"E:yaml-anchor", "E:yaml-anchor", "W:metadata-value-not-string"}, def: []string{"W:metadata-value-not-string", "W:yaml-anchor", "W:yaml-anchor"}, cc: []string{"W:metadata-value-not-string", "W:yaml-anchor", "W:yaml-anchor"}, api: []string{"W:metadata-value-not-string", "W:yaml-anchor", "W:yaml-anchor"}},
	{dir: "20-tag/my-skill", spec: []string{"E:yaml-tag"}, def: []string{"W:yaml-tag"}, cc: []string{"W:yaml-tag"}, api: []string{"W:yaml-tag"}},
	{dir: "21-duplicate-key/my-skill", all: []string{"E:yaml-duplicate-key"}},
	{dir: "22-version-text/my-skill", all: nil},
	{dir: "23-numeric-name/123", all: nil},
	{dir: "24-inner-dashes/my-skill", all: []string{"W:frontmatter-inner-dashes"}},
	{dir: "25-only-description/my-skill", all: []string{"E:name-missing"}},
	{dir: "26-only-name/my-skill", all: []string{"E:description-missing"}},
	{dir: "27-blank-description/my-skill", all: []string{"E:description-missing"}},
	{dir: "28-uppercase/MySkill", all: []string{"E:name-format"}},
	{dir: "29-long-name/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", all: []string{"E:name-too-long"}},
	{dir: "30-leading-hyphen/-my-skill", all: []string{"E:name-format"}},
	{dir: "31-double-hyphen/my--skill", all: []string{"E:name-format"}},
	{dir: "32-underscore/my_skill", all: []string{"E:name-format"}},
	{dir: "33-dir-mismatch/wrong-name", all: []string{"E:name-dir-mismatch"}},
	{dir: "34-unknown-field/my-skill", spec: []string{"E:unknown-field"}, def: []string{"W:unknown-field"}, cc: []string{"E:unknown-field"}, api: []string{"E:unknown-field"}},
	{dir: "35-claude-code-field/my-skill", spec: []string{"E:unknown-field"}, def: nil, cc: nil, api: []string{"E:unknown-field"}},
	{dir: "36-license-metadata/my-skill", all: nil},
	{dir: "37-allowed-tools-string/my-skill", all: nil},
	{dir: "38-allowed-tools-list/my-skill", spec: []string{"W:allowed-tools-list"}, def: []string{"W:allowed-tools-list"}, cc: []string{"I:allowed-tools-list"}, api: []string{"W:allowed-tools-list"}},
	{dir: "39-metadata-nested/my-skill", all: []string{"W:metadata-value-not-string", "W:metadata-value-not-string"}},
	{dir: "40-metadata-scalar/my-skill", spec: nil, def: []string{"E:metadata-not-map"}, cc: []string{"E:metadata-not-map"}, api: []string{"E:metadata-not-map"}},
	{dir: "41-long-description/my-skill", all: []string{"E:description-too-long"}},
	{dir: "42-compatibility/my-skill", all: nil},
	{dir: "43-long-compatibility/my-skill", all: []string{"E:compatibility-too-long"}},
	{dir: "44-empty-compatibility/my-skill", spec: nil, def: []string{"I:compatibility-empty"}, cc: []string{"I:compatibility-empty"}, api: []string{"E:compatibility-empty"}},
	{dir: "45-trimmed-name/trail-space", all: nil},
	{dir: "46-cjk/技能", spec: nil, def: []string{"W:name-not-ascii"}, cc: []string{"W:name-not-ascii"}, api: []string{"E:name-not-ascii"}},
	{dir: "47-cyrillic/мой-навык", spec: nil, def: []string{"W:name-not-ascii"}, cc: []string{"W:name-not-ascii"}, api: []string{"E:name-not-ascii"}},
	{dir: "48-cyrillic-word/навык", spec: nil, def: []string{"W:name-not-ascii"}, cc: []string{"W:name-not-ascii"}, api: []string{"E:name-not-ascii"}},
	{dir: "49-cyrillic-upper/НАВЫК", spec: []string{"E:name-format"}, def: []string{"E:name-format", "W:name-not-ascii"}, cc: []string{"E:name-format", "W:name-not-ascii"}, api: []string{"E:name-format", "E:name-not-ascii"}},
	{dir: "50-combining/café", spec: nil, def: []string{"W:name-not-ascii"}, cc: []string{"W:name-not-ascii"}, api: []string{"E:name-not-ascii"}},
	{dir: "51-superscript/x2", all: nil},
	{dir: "52-ligature/ﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁﬁ", all: []string{"E:name-too-long"}},
	{dir: "53-many-findings/other-folder", spec: []string{"E:name-dir-mismatch", "E:name-format", "E:name-format", "E:name-format", "E:name-format", "E:unknown-field"}, def: []string{"E:name-dir-mismatch", "E:name-format", "E:name-format", "E:name-format", "E:name-format", "W:unknown-field"}, cc: []string{"E:name-dir-mismatch", "E:name-format", "E:name-format", "E:name-format", "E:name-format", "E:unknown-field"}, api: []string{"E:name-dir-mismatch", "E:name-format", "E:name-format", "E:name-format", "E:name-format", "E:unknown-field"}},
	{dir: "rule-allowed-tools-invalid/my-skill", all: []string{"E:allowed-tools-invalid"}},
	{dir: "rule-binary-file/my-skill", all: []string{"E:binary-file"}},
	{dir: "rule-body-too-long/my-skill", all: []string{"W:body-too-long"}},
	{dir: "rule-body-too-many-tokens/my-skill", all: []string{"W:body-too-many-tokens"}},
	{dir: "rule-compatibility-not-string/my-skill", all: []string{"E:compatibility-not-string"}},
	{dir: "rule-description-xml-tags/my-skill", spec: nil, def: []string{"I:description-xml-tags"}, cc: []string{"I:description-xml-tags"}, api: []string{"E:description-xml-tags"}},
	{dir: "rule-entrypoint-missing/my-skill", spec: []string{"E:unknown-field"}, def: []string{"E:entrypoint-missing"}, cc: []string{"E:unknown-field", "W:entrypoint-missing"}, api: []string{"E:unknown-field", "W:entrypoint-missing"}},
	{dir: "rule-entrypoint-outside/my-skill", spec: []string{"E:unknown-field"}, def: []string{"E:entrypoint-missing"}, cc: []string{"E:unknown-field", "W:entrypoint-missing"}, api: []string{"E:unknown-field", "W:entrypoint-missing"}},
	{dir: "rule-execution-ok/my-skill", spec: []string{"E:unknown-field", "E:yaml-flow-style"}, def: []string{"I:yaml-flow-style"}, cc: []string{"E:unknown-field", "I:yaml-flow-style"}, api: []string{"E:unknown-field", "I:yaml-flow-style"}},
	{dir: "rule-field-type/my-skill", spec: []string{"E:unknown-field"}, def: []string{"W:field-type", "W:field-type", "W:field-type", "W:field-type"}, cc: []string{"E:unknown-field", "W:field-type", "W:field-type"}, api: []string{"E:unknown-field", "W:field-type"}},
	{dir: "rule-mode-invalid/my-skill", spec: []string{"E:unknown-field"}, def: []string{"E:mode-invalid"}, cc: []string{"E:unknown-field", "W:mode-invalid"}, api: []string{"E:unknown-field", "W:mode-invalid"}},
	{dir: "rule-name-not-text/my-skill", all: []string{"E:name-missing"}},
	{dir: "rule-name-reserved/claude-helper", spec: nil, def: nil, cc: nil, api: []string{"E:name-reserved"}},
	{dir: "rule-not-utf8/my-skill", all: []string{"E:not-utf8"}},
	{dir: "rule-permissions-invalid/my-skill", spec: []string{"E:unknown-field"}, def: []string{"E:permissions-invalid"}, cc: []string{"E:unknown-field", "W:permissions-invalid"}, api: []string{"E:unknown-field", "W:permissions-invalid"}},
	{dir: "rule-reference-missing/my-skill", all: []string{"W:reference-missing", "W:reference-missing", "W:reference-missing"}},
	{dir: "rule-sandbox-no-script/my-skill", spec: []string{"E:unknown-field"}, def: []string{"E:entrypoint-missing"}, cc: []string{"E:unknown-field", "W:entrypoint-missing"}, api: []string{"E:unknown-field", "W:entrypoint-missing"}},
	{dir: "rule-script-not-executable/my-skill", spec: []string{"E:unknown-field"}, def: []string{"W:script-not-executable", "W:script-not-executable"}, cc: []string{"E:unknown-field", "I:script-not-executable", "I:script-not-executable"}, api: []string{"E:unknown-field", "I:script-not-executable", "I:script-not-executable"}},
	{dir: "rule-timeout-invalid/my-skill", spec: nil, def: []string{"E:timeout-invalid"}, cc: []string{"W:timeout-invalid"}, api: []string{"W:timeout-invalid"}},
	{dir: "rule-timeout-range/my-skill", spec: nil, def: []string{"E:timeout-invalid"}, cc: []string{"W:timeout-invalid"}, api: []string{"W:timeout-invalid"}},
	{dir: "rule-yaml-too-complex/my-skill", all: []string{"E:yaml-too-complex"}},
}

func TestFixtures(t *testing.T) {
	for _, tc := range fixtureCases {
		t.Run(tc.dir, func(t *testing.T) {
			if strings.HasPrefix(tc.dir, "rule-script-not-executable") && runtime.GOOS == "windows" {
				t.Skip("Windows keeps no executable bits")
			}
			want := map[string][]string{ProfileSpec: tc.spec, ProfileDefault: tc.def, ProfileClaudeCode: tc.cc, ProfileAnthropicAPI: tc.api}
			for _, p := range Profiles {
				exp := want[p]
				if tc.all != nil || (tc.spec == nil && tc.def == nil && tc.cc == nil && tc.api == nil) {
					exp = tc.all
				}
				res := Dir(filepath.Join("testdata", filepath.FromSlash(tc.dir)), Options{Profile: p})
				got := ruleIDs(res)
				assert.Equal(t, exp, got, "profile %s: %+v", p, res.Findings)
				assert.Equal(t, hasError(exp), res.HasErrors(), "verdict under profile %s", p)
			}
		})
	}
}
