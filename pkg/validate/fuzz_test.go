package validate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillctl/skillctl/pkg/skill"
	"gopkg.in/yaml.v3"
)

// memSkill is a skill folder "fuzz-skill" holding only SKILL.md, in memory.
func memSkill(data []byte) *target {
	m := &memFS{files: map[string]*memEntry{}, dirs: map[string][]string{".": nil}}
	m.addFile(&memEntry{name: "SKILL.md", mode: 0o644, size: int64(len(data)), data: data})
	return &target{fsys: m, display: "fuzz-skill", join: func(rel string) string { return "fuzz-skill/" + rel },
		dirName: "fuzz-skill"}
}

// FuzzParse feeds arbitrary SKILL.md content to the frontmatter parser and to
// every profile's checks: they must never panic, and what they return must
// be well formed. Seeds: testdata/fuzz/FuzzParse and the fixtures.
func FuzzParse(f *testing.F) {
	_ = filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(d.Name(), "SKILL.md") {
			if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
		return nil
	})
	tables := make([]*profileTable, 0, len(Profiles))
	for _, p := range Profiles {
		tables = append(tables, newProfileTable(p, nil))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := skill.Parse(data, "SKILL.md")
		if err == nil {
			if doc.Root == nil || doc.Root.Kind != yaml.MappingNode {
				t.Fatalf("parsed frontmatter is not a mapping: %#v", doc.Root)
			}
			if doc.BodyLine < 2 {
				t.Fatalf("body line %d", doc.BodyLine)
			}
		} else if _, ok := err.(*skill.ParseError); !ok {
			t.Fatalf("error is not a ParseError: %T %v", err, err)
		}
		for _, pt := range tables {
			res := validateTarget(memSkill(data), pt)
			for _, fd := range res.Findings {
				if RuleByID(fd.Rule) == nil {
					t.Fatalf("%s: unknown rule %q (%s)", pt.profile, fd.Rule, fd.Message)
				}
				if fd.Severity != Error && fd.Severity != Warning && fd.Severity != Info {
					t.Fatalf("%s: bad severity %q for %s", pt.profile, fd.Severity, fd.Rule)
				}
				if fd.Line < 0 || fd.Column < 0 {
					t.Fatalf("%s: bad position %d:%d for %s", pt.profile, fd.Line, fd.Column, fd.Rule)
				}
			}
			if err != nil && !res.HasErrors() && pt.profile != ProfileSpec {
				t.Fatalf("%s: the parser refused the file (%v) but validation found no error", pt.profile, err)
			}
		}
	})
}
