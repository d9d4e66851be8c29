package install

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Scopes.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// TargetOptions say where skills go.
type TargetOptions struct {
	// Dir, when set, is the one target root.
	Dir string
	// Scope is user (default) or project.
	Scope string
	// Agents are the agent folder sets; empty means claude.
	Agents []string
	Home   string
	Cwd    string
	Getenv func(string) string
}

// TargetRoots lists the target roots: Dir, else the skills folder of each
// agent in the scope (SPEC §3) — user: ~/.claude/skills (or
// $CLAUDE_CONFIG_DIR/skills), ~/.agents/skills, ~/.codex/skills,
// ~/.config/opencode/skills; project: .claude/skills, .agents/skills (also
// for codex), .opencode/skills at the repository top (the working folder
// when there is no repository).
func TargetRoots(o TargetOptions) ([]string, error) {
	if o.Dir != "" {
		d := o.Dir
		if !filepath.IsAbs(d) {
			d = filepath.Join(o.Cwd, d)
		}
		return []string{filepath.Clean(d)}, nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	agents := o.Agents
	if len(agents) == 0 {
		agents = []string{skill.AgentClaude}
	}
	var roots []string
	add := func(p string) {
		p = filepath.Clean(p)
		for _, r := range roots {
			if r == p {
				return
			}
		}
		roots = append(roots, p)
	}
	switch o.Scope {
	case "", ScopeUser:
		if o.Home == "" {
			return nil, fmt.Errorf("no home folder: set HOME or use --dir")
		}
		claude := filepath.Join(o.Home, ".claude")
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			claude = d
		}
		for _, a := range agents {
			switch a {
			case skill.AgentClaude:
				add(filepath.Join(claude, "skills"))
			case skill.AgentAgents:
				add(filepath.Join(o.Home, ".agents", "skills"))
			case skill.AgentCodex:
				add(filepath.Join(o.Home, ".codex", "skills"))
			case skill.AgentOpenCode:
				add(filepath.Join(o.Home, ".config", "opencode", "skills"))
			default:
				return nil, fmt.Errorf("unknown agent %q", a)
			}
		}
	case ScopeProject:
		top := skill.RepoTop(o.Cwd)
		if top == "" {
			top = o.Cwd
		}
		for _, a := range agents {
			switch a {
			case skill.AgentClaude:
				add(filepath.Join(top, ".claude", "skills"))
			case skill.AgentAgents, skill.AgentCodex:
				add(filepath.Join(top, ".agents", "skills"))
			case skill.AgentOpenCode:
				add(filepath.Join(top, ".opencode", "skills"))
			default:
				return nil, fmt.Errorf("unknown agent %q", a)
			}
		}
	default:
		return nil, fmt.Errorf("--scope must be user or project, not %q", o.Scope)
	}
	return roots, nil
}
