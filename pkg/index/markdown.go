package index

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skillctl/skillctl/pkg/skill"
)

// DirectBodyLimit is how many characters of each body the direct style keeps.
const DirectBodyLimit = 1000

// Markdown is an "## Available Skills" section for a system prompt:
//   - awareness: per skill its name, source, description, SKILL.md path and files;
//   - direct: per skill its description and body inline, each body cut at
//     DirectBodyLimit characters with "...";
//   - tool: one line per skill, pointing at the skill tool (see Tools).
func Markdown(items []Item, style string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("## Available Skills\n\n")
	switch style {
	case "", StyleAwareness:
		if len(items) == 0 {
			b.WriteString("No skills are available.\n")
			return b.Bytes(), nil
		}
		b.WriteString("Read a skill's SKILL.md before using it, and run its scripts from its folder.\n\n")
		for _, it := range items {
			files, err := skill.Files(it.Skill.Dir)
			if err != nil {
				return nil, fmt.Errorf("list the files of %s: %w", it.Skill.Dir, err)
			}
			fmt.Fprintf(&b, "- **%s** (%s): %s\n", oneLine(it.Skill.Name), it.Skill.Source, oneLine(it.Skill.Description))
			fmt.Fprintf(&b, "  - Path: `%s`\n", it.Location())
			fmt.Fprintf(&b, "  - Files: %s\n", FilesLine(files))
		}
	case StyleDirect:
		if len(items) == 0 {
			b.WriteString("No skills are available.\n")
			return b.Bytes(), nil
		}
		b.WriteString("Follow the instructions of a skill when a task matches its description.\n")
		for _, it := range items {
			fmt.Fprintf(&b, "\n### %s\n\n", oneLine(it.Skill.Name))
			if d := oneLine(it.Skill.Description); d != "" {
				fmt.Fprintf(&b, "%s\n\n", d)
			}
			body := CutBody(it.Skill.Body, DirectBodyLimit)
			if body != "" {
				b.WriteString(body)
				b.WriteByte('\n')
			}
		}
	case StyleTool:
		if len(items) == 0 {
			b.WriteString("No skills are available.\n")
			return b.Bytes(), nil
		}
		b.WriteString("Load a skill with the `skill` tool (its `name` parameter) before following it; read its other files with `read_skill_file`.\n\n")
		for _, it := range items {
			fmt.Fprintf(&b, "- `%s`: %s\n", oneLine(it.Skill.Name), oneLine(it.Skill.Description))
		}
	default:
		return nil, fmt.Errorf("unknown Markdown style %q: use one of %s", style, strings.Join(Styles, ", "))
	}
	return b.Bytes(), nil
}

// CutBody trims a body and cuts it to max characters (code points), adding
// "..." when it was longer.
func CutBody(body string, max int) string {
	body = strings.TrimSpace(body)
	if utf8.RuneCountInString(body) <= max {
		return body
	}
	n := 0
	for i := range body {
		if n == max {
			return body[:i] + "..."
		}
		n++
	}
	return body
}
