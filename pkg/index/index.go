// Package index turns a set of skills into what an agent reads: the
// <available_skills> block of the agentskills.io reference, a catalog for
// lazy loading, Markdown prompt sections, JSON, function-calling tool
// definitions, or a static .well-known site. It also splices its output into
// an existing file between marker comments, atomically.
package index

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Formats.
const (
	FormatXML       = "xml"
	FormatCatalog   = "catalog"
	FormatMarkdown  = "markdown"
	FormatJSON      = "json"
	FormatTools     = "tools"
	FormatWellKnown = "wellknown"
)

// Formats lists every format, the default first.
var Formats = []string{FormatXML, FormatCatalog, FormatMarkdown, FormatJSON, FormatTools, FormatWellKnown}

// Markdown styles.
const (
	StyleAwareness = "awareness"
	StyleDirect    = "direct"
	StyleTool      = "tool"
)

// Styles lists the Markdown styles, the default first.
var Styles = []string{StyleAwareness, StyleDirect, StyleTool}

// Item is one skill to index.
type Item struct {
	Skill *skill.Skill
	// RealDir is the skill folder with symbolic links resolved. When empty it
	// is resolved on demand.
	RealDir string
	// RelTo, when set, is the folder (absolute, links resolved) that
	// Location and Dir are relative to: the folder of the file an index is
	// written into, for paths that stay right when the repository is
	// cloned elsewhere.
	RelTo string
}

// Location is the path of the skill's SKILL.md with symbolic links
// resolved: absolute, as the reference to-prompt prints it, or relative to
// RelTo (slash-separated) when that is set.
func (it Item) Location() string {
	loc := it.absLocation()
	if it.RelTo == "" {
		return loc
	}
	return relSlash(it.RelTo, loc)
}

// Dir is the skill folder as an index names it: as found, or relative to
// RelTo.
func (it Item) Dir() string {
	if it.RelTo == "" {
		return it.Skill.Dir
	}
	return relSlash(it.RelTo, filepath.Dir(it.absLocation()))
}

func relSlash(base, p string) string {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

func (it Item) absLocation() string {
	dir := it.RealDir
	if dir == "" {
		dir = it.Skill.Dir
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
	}
	base := "SKILL.md"
	if it.Skill.File != "" {
		base = filepath.Base(it.Skill.File)
	}
	return filepath.Join(dir, base)
}

// Reasons a skill is left out of an index.
const (
	ReasonDisabled     = "disabled in config"
	ReasonNoModelCalls = "disable-model-invocation: true"
)

// Excluded is a skill left out of an index, and why.
type Excluded struct {
	Name   string `json:"name"`
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Select keeps the skills an agent may be offered: it leaves out those for
// which disabled(name, id) is true and those with disable-model-invocation,
// and sorts the rest by name (then id, so the order is stable).
func Select(items []Item, disabled func(name, id string) bool) ([]Item, []Excluded) {
	var kept []Item
	var out []Excluded
	for _, it := range items {
		s := it.Skill
		switch {
		case disabled != nil && disabled(s.Name, s.ID):
			out = append(out, Excluded{Name: s.Name, ID: s.ID, Reason: ReasonDisabled})
		case s.DisableModelInvocation:
			out = append(out, Excluded{Name: s.Name, ID: s.ID, Reason: ReasonNoModelCalls})
		default:
			kept = append(kept, it)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i].Skill, kept[j].Skill
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return kept, out
}

// Options choose what Render writes.
type Options struct {
	// Format is one of Formats except wellknown (see WriteWellKnown).
	Format string
	// Style is the Markdown style.
	Style string
}

// Render writes the index of items in the chosen format.
func Render(w io.Writer, items []Item, opts Options) error {
	switch opts.Format {
	case "", FormatXML:
		return writeAll(w, XML(items))
	case FormatCatalog:
		b, err := Catalog(items)
		if err != nil {
			return err
		}
		return writeAll(w, b)
	case FormatMarkdown:
		b, err := Markdown(items, opts.Style)
		if err != nil {
			return err
		}
		return writeAll(w, b)
	case FormatJSON:
		b, err := JSON(items)
		if err != nil {
			return err
		}
		return writeAll(w, b)
	case FormatTools:
		b, err := Tools(items)
		if err != nil {
			return err
		}
		return writeAll(w, b)
	case FormatWellKnown:
		return fmt.Errorf("the wellknown format writes a folder; use WriteWellKnown")
	}
	return fmt.Errorf("unknown format %q: use one of %s", opts.Format, strings.Join(Formats, ", "))
}

func writeAll(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}

// escapeHTML escapes text the way Python's html.escape(s, quote=True) does:
// & < > " and ' become &amp; &lt; &gt; &quot; and &#x27;.
func escapeHTML(s string) string {
	if !strings.ContainsAny(s, `&<>"'`) {
		return s
	}
	return htmlEscaper.Replace(s)
}

var htmlEscaper = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`"`, "&quot;",
	"'", "&#x27;",
)

// pyStrip trims what Python's str.strip() trims: Unicode white space and the
// information separators U+001C to U+001F.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch {
		case r >= 0x1c && r <= 0x1f:
			return true
		case r == ' ', r == '\t', r == '\n', r == '\v', r == '\f', r == '\r', r == 0x85, r == 0xa0,
			r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
			return true
		}
		return false
	})
}

// oneLine collapses runs of white space (line breaks included) to single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
