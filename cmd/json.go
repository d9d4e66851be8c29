package cmd

import (
	"encoding/json"
	"io"
)

// writeJSON prints one JSON document, indented, with a final newline.
// HTML characters are not escaped: the output is for programs and people.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
