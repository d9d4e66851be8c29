package validate

import (
	"errors"
	"syscall"

	"github.com/skillctl/skillctl/pkg/skill"
)

// readSkillFile reads a SKILL.md with the loader's reader. A folder named
// SKILL.md reads as errNotRegular (the finder, pkg/skilltree, never takes
// such a folder for a skill).
func readSkillFile(path string) ([]byte, error) {
	data, err := skill.ReadSkillFile(path)
	if err != nil && errors.Is(err, syscall.EISDIR) {
		return nil, errNotRegular
	}
	return data, err
}

// parseSkill parses SKILL.md content (skill.Parse has the fast path for
// simple frontmatter).
func parseSkill(data []byte, file string) (*skill.Document, error) {
	return skill.Parse(data, file)
}
