// Package render turns rows, trees and labels into terminal output: styled
// tables on a terminal, tab-separated rows in a pipe.
package render

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/muesli/termenv"

	"github.com/skillctl/skillctl/internal/iostreams"
	"github.com/skillctl/skillctl/internal/safetext"
)

// Styles are the styles for one stream.
type Styles struct {
	r       *lipgloss.Renderer
	color   bool
	Bold    lipgloss.Style
	Faint   lipgloss.Style
	Header  lipgloss.Style
	Error   lipgloss.Style
	Warning lipgloss.Style
	Info    lipgloss.Style
	Success lipgloss.Style
	Accent  lipgloss.Style
}

// NewStyles builds styles for w with color on or off.
func NewStyles(w io.Writer, color bool) *Styles {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return &Styles{
		r:       r,
		color:   color,
		Bold:    r.NewStyle().Bold(true),
		Faint:   r.NewStyle().Faint(true),
		Header:  r.NewStyle().Bold(true).Foreground(lipgloss.Color("12")),
		Error:   r.NewStyle().Bold(true).Foreground(lipgloss.Color("9")),
		Warning: r.NewStyle().Foreground(lipgloss.Color("11")),
		Info:    r.NewStyle().Foreground(lipgloss.Color("14")),
		Success: r.NewStyle().Foreground(lipgloss.Color("10")),
		Accent:  r.NewStyle().Foreground(lipgloss.Color("13")),
	}
}

// ForStdout and ForStderr build styles per the streams' color policy.
func ForStdout(io *iostreams.IOStreams) *Styles { return NewStyles(io.Out, io.ColorEnabled(false)) }
func ForStderr(io *iostreams.IOStreams) *Styles { return NewStyles(io.ErrOut, io.ColorEnabled(true)) }

// Renderer returns the lipgloss renderer of these styles.
func (s *Styles) Renderer() *lipgloss.Renderer { return s.r }

// Color reports whether these styles emit color.
func (s *Styles) Color() bool { return s.color }

// Table prints rows: with a header, aligned and styled on a terminal;
// tab-separated without a header otherwise.
type Table struct {
	Header []string
	Rows   [][]string
	// Truncate lists columns that may be shortened to fit Width (terminal only).
	Truncate map[int]bool
	Width    int
}

// Print writes the table to w.
func (t *Table) Print(w io.Writer, tty bool, st *Styles) error {
	if !tty {
		var buf []byte
		for _, row := range t.Rows {
			buf = AppendRow(buf[:0], row...)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	rows := make([][]string, len(t.Rows))
	for i, row := range t.Rows {
		rows[i] = make([]string, len(row))
		for j, c := range row {
			rows[i][j] = Flatten(c)
		}
	}
	if t.Width > 0 && len(t.Truncate) > 0 {
		fitColumns(t.Header, rows, t.Truncate, t.Width)
	}
	tb := table.New().
		Border(lipgloss.HiddenBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderColumn(false).BorderHeader(false).
		Headers(t.Header...).
		Rows(rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			base := st.r.NewStyle().PaddingRight(2)
			if row == table.HeaderRow {
				return base.Inherit(st.Header)
			}
			return base
		})
	var b strings.Builder
	for _, line := range strings.Split(tb.Render(), "\n") {
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fitColumns shortens truncatable columns so every row fits width.
func fitColumns(header []string, rows [][]string, trunc map[int]bool, width int) {
	n := len(header)
	widths := make([]int, n)
	for i, h := range header {
		widths[i] = lipgloss.Width(h)
	}
	for _, r := range rows {
		for i := 0; i < n && i < len(r); i++ {
			widths[i] = max(widths[i], lipgloss.Width(r[i]))
		}
	}
	total := 0
	for _, w := range widths {
		total += w + 2
	}
	over := total - width
	if over <= 0 {
		return
	}
	for col := n - 1; col >= 0 && over > 0; col-- {
		if !trunc[col] {
			continue
		}
		minW := max(lipgloss.Width(header[col]), 10)
		can := widths[col] - minW
		if can <= 0 {
			continue
		}
		cut := min(can, over)
		widths[col] -= cut
		over -= cut
		for _, r := range rows {
			if col < len(r) {
				r[col] = Truncate(r[col], widths[col])
			}
		}
	}
}

// Truncate shortens s to at most w cells, ending with "…" when cut.
func Truncate(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	var b strings.Builder
	cur := 0
	for _, r := range s {
		rw := lipgloss.Width(string(r))
		if cur+rw > w-1 {
			break
		}
		b.WriteRune(r)
		cur += rw
	}
	return b.String() + "…"
}

// AppendRow appends one row as a pipe gets it: the cells flattened
// (Flatten), separated by tabs, then a newline. Long listings write their
// rows one at a time with it.
func AppendRow(buf []byte, cells ...string) []byte {
	for i, c := range cells {
		if i > 0 {
			buf = append(buf, '\t')
		}
		buf = append(buf, Flatten(c)...)
	}
	return append(buf, '\n')
}

// Flatten puts a value on one line, safe for a terminal: tabs and line
// breaks become spaces, and other control characters are made visible
// (safetext.Line).
func Flatten(s string) string {
	for i := 0; i < len(s); i++ { // strings.ContainsAny, without building its set each call
		if c := s[i]; c == '\t' || c == '\n' || c == '\r' {
			s = strings.Join(strings.Fields(s), " ")
			break
		}
	}
	return safetext.Line(s)
}
