package index

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillctl/skillctl/pkg/skill"
)

// XML is the <available_skills> block exactly as the agentskills.io reference
// `skills-ref to-prompt` prints it for the same skills in the same order:
// every tag and every value on its own line, name and description trimmed and
// HTML-escaped, the absolute SKILL.md path as it is, and a final newline.
func XML(items []Item) []byte {
	var b bytes.Buffer
	b.Grow(64 + len(items)*256)
	b.WriteString("<available_skills>\n")
	for _, it := range items {
		b.WriteString("<skill>\n<name>\n")
		b.WriteString(escapeHTML(pyStrip(it.Skill.Name)))
		b.WriteString("\n</name>\n<description>\n")
		b.WriteString(escapeHTML(pyStrip(it.Skill.Description)))
		b.WriteString("\n</description>\n<location>\n")
		b.WriteString(it.Location())
		b.WriteString("\n</location>\n</skill>\n")
	}
	b.WriteString("</available_skills>\n")
	return b.Bytes()
}

// CatalogInstructions are the sentences that follow the catalog.
const CatalogInstructions = "Before using a skill, read its SKILL.md in full: it says what the skill does and how to use it. " +
	"Run a skill's scripts from its folder (the path attribute), so that the paths in its instructions resolve.\n"

// Catalog is an <available_skills> block for lazy loading: per skill its name
// and folder as attributes, its description, and a line listing its files,
// then instructions to read SKILL.md first and to run scripts from the skill folder.
func Catalog(items []Item) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("<available_skills>\n")
	for _, it := range items {
		files, err := skill.Files(it.Skill.Dir)
		if err != nil {
			return nil, fmt.Errorf("list the files of %s: %w", it.Skill.Dir, err)
		}
		fmt.Fprintf(&b, "<skill name=\"%s\" path=\"%s\">\n", escapeHTML(pyStrip(it.Skill.Name)),
			escapeHTML(filepath.Dir(it.Location())))
		b.WriteString(escapeHTML(oneLine(it.Skill.Description)))
		b.WriteString("\nFiles: ")
		b.WriteString(escapeHTML(FilesLine(files)))
		b.WriteString("\n</skill>\n")
	}
	b.WriteString("</available_skills>\n\n")
	b.WriteString(CatalogInstructions)
	return b.Bytes(), nil
}

// FilesLine summarises a skill's files for an agent: SKILL.md first, then the
// other top-level files, then each top-level folder with its file count, as
// in "SKILL.md, REFERENCE.md, scripts/ (8 files)".
func FilesLine(files []skill.File) string {
	var top []string
	dirs := map[string]int{}
	hasSkillMd := ""
	for _, f := range files {
		dir, _, nested := strings.Cut(f.Path, "/")
		switch {
		case nested:
			dirs[dir]++
		case f.Path == "SKILL.md" || (f.Path == "skill.md" && hasSkillMd == ""):
			hasSkillMd = f.Path
		default:
			top = append(top, f.Path)
		}
	}
	sort.Strings(top)
	var parts []string
	if hasSkillMd != "" {
		parts = append(parts, hasSkillMd)
	}
	parts = append(parts, top...)
	names := make([]string, 0, len(dirs))
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		unit := "files"
		if dirs[d] == 1 {
			unit = "file"
		}
		parts = append(parts, fmt.Sprintf("%s/ (%d %s)", d, dirs[d], unit))
	}
	return strings.Join(parts, ", ")
}
