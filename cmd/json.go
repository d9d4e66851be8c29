package cmd

import (
	"io"

	"github.com/skillctl/skillctl/pkg/findings"
)

// writeJSON prints one JSON document, indented, with a final newline.
// HTML characters are not escaped: the output is for programs and people.
// It is the encoding the findings writers use.
func writeJSON(w io.Writer, v any) error { return findings.WriteJSON(w, v) }
