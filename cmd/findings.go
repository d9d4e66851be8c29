package cmd

import (
	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/render"
	"github.com/skillctl/skillctl/pkg/findings"
)

// findingStyle colours findings for stderr (or stdout when toStdout), with
// hints on a terminal.
func findingStyle(ios *iostreams.IOStreams, toStdout bool) findings.TextStyle {
	st, tty := render.ForStderr(ios), ios.IsStderrTTY()
	if toStdout {
		st, tty = render.ForStdout(ios), ios.IsStdoutTTY()
	}
	return findings.TextStyle{
		Severity: func(sev string) string {
			switch sev {
			case findings.Error, findings.Critical, findings.High:
				return st.Error.Render(sev)
			case findings.Warning, findings.Medium:
				return st.Warning.Render(sev)
			}
			return st.Info.Render(sev)
		},
		Hint:  func(s string) string { return st.Faint.Render(s) },
		Hints: tty,
	}
}
