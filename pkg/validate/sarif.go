package validate

import (
	"io"

	"github.com/skillctl/skillctl/pkg/findings"
)

// DocsURL is where the rules are documented.
const DocsURL = "https://github.com/skillctl/skillctl/blob/main/docs/validate.md"

// WriteSARIF writes the report as a SARIF 2.1.0 log: every rule with its
// help, and one result per finding. toolVersion is skillctl's version.
func (r *Report) WriteSARIF(w io.Writer, toolVersion string) error {
	pt := r.pt
	if pt == nil {
		pt = newProfileTable(r.Profile, nil)
	}
	tool := findings.Tool{Name: "skillctl", Version: toolVersion, InformationURI: "https://github.com/skillctl/skillctl",
		SrcRoot: r.SrcRoot}
	for _, rule := range Rules {
		tool.Rules = append(tool.Rules, findings.Rule{ID: rule.ID, Summary: rule.Summary, Hint: rule.Hint,
			Severity: pt.sev[rule.ID], HelpURI: DocsURL + "#" + rule.ID})
	}
	return findings.WriteSARIF(w, tool, r.Findings())
}
