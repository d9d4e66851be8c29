package cmd

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/skillctl/skillctl/pkg/findings"
)

// writeJSON prints one JSON document, indented, with a final newline.
// HTML characters are not escaped: the output is for programs and people.
// It is the encoding the findings writers use.
func writeJSON(w io.Writer, v any) error { return findings.WriteJSON(w, v) }

// writeJSONArray prints the array of n items item(0)…item(n-1) exactly as
// writeJSON prints a slice of them, one item at a time, so that a long
// listing is never held in memory whole.
func writeJSONArray[T any](w io.Writer, n int, item func(i int) T) error {
	if n == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i := range n {
		buf.Reset()
		buf.WriteString("  ")
		if err := enc.Encode(item(i)); err != nil {
			return err
		}
		b := buf.Bytes()
		b = b[:len(b)-1] // Encode's newline
		if i < n-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]\n")
	return err
}
