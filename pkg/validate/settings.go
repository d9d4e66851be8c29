package validate

import (
	"fmt"
	"strings"

	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/config"
	"github.com/skillctl/skillctl/pkg/skilltree"
)

// Settings reads the configuration's validate section for a run in cwd:
// the level each rule is set to (validate.rules, a later file winning)
// and the folders to leave out (validate.exclude). Patterns of the user's
// own config file are relative to cwd's repository top, or to cwd outside
// one. A mistake is a *config.Error naming the file and line: an unknown
// rule (with the nearest ids), a bad level, a pattern that matches nothing.
func Settings(cfg *config.Config, cwd string) (map[string]string, *skilltree.Matcher, error) {
	if cfg == nil {
		return nil, nil, nil
	}
	var levels map[string]string
	for _, r := range cfg.Validate.Rules {
		if err := CheckLevel(r.Rule, r.Level); err != nil {
			return nil, nil, &config.Error{File: r.File, Line: r.Line, Msg: "validate.rules: " + err.Error()}
		}
		if levels == nil {
			levels = map[string]string{}
		}
		levels[r.Rule] = r.Level
	}
	if len(cfg.Validate.Exclude) == 0 {
		return levels, nil, nil
	}
	top := agents.RepoTop(cwd)
	if top == "" {
		top = cwd
	}
	pats := make([]skilltree.Pattern, 0, len(cfg.Validate.Exclude))
	for _, p := range cfg.Validate.Exclude {
		base := p.Base
		if base == "" {
			base = top
		}
		if why := skilltree.CheckGlob(p.Glob); why != "" {
			return nil, nil, &config.Error{File: p.File, Line: p.Line, Msg: fmt.Sprintf("validate.exclude: %q: %s", p.Glob, why)}
		}
		pats = append(pats, skilltree.Pattern{Glob: p.Glob, Base: base})
	}
	return levels, skilltree.NewMatcher(pats), nil
}

// ParseRuleLevels reads RULE=LEVEL settings (--rule), several to a string
// when separated by commas, into levels (created when nil).
func ParseRuleLevels(levels map[string]string, settings []string) (map[string]string, error) {
	for _, s := range settings {
		for _, one := range strings.Split(s, ",") {
			rule, level, ok := strings.Cut(strings.TrimSpace(one), "=")
			if !ok {
				return nil, fmt.Errorf("write RULE=LEVEL (e.g. unknown-field=off), not %q", one)
			}
			rule, level = strings.TrimSpace(rule), strings.ToLower(strings.TrimSpace(level))
			if err := CheckLevel(rule, level); err != nil {
				return nil, err
			}
			if levels == nil {
				levels = map[string]string{}
			}
			levels[rule] = level
		}
	}
	return levels, nil
}
