// Package agents is the one table of the agents skillctl knows and the skill
// folders each of them loads, in the user's home and in project folders
// (SPEC §3). Discovery reads it to know where to look; install reads it to
// know where to write.
package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Agent names.
const (
	Claude   = "claude"
	Agents   = "agents"
	Codex    = "codex"
	OpenCode = "opencode"
)

// Agent is one agent and the skill folders it loads.
type Agent struct {
	// Name is what --agent and config agents: take.
	Name string
	// Title is the agent's name as people know it.
	Title string
	// User lists the folders under the home folder it loads, as keys of
	// userFolders; the first is where a user-scope install writes.
	User []string
	// Project lists the folders it loads in each project folder (relative,
	// slash-separated); the first is where a project-scope install writes.
	Project []string
	// Plugins is set when it loads Claude Code plugin skills.
	Plugins bool
}

// Folder keys of the user folders, in precedence order (lowest first).
const (
	userClaude   = ".claude/skills" // $CLAUDE_CONFIG_DIR/skills when set
	userAgents   = ".agents/skills"
	userCodex    = ".codex/skills"
	userOpenCode = ".config/opencode/skills"
)

// userOrder and projectOrder fix the order of the folders within a tier:
// later folders shadow earlier ones.
var (
	userOrder    = []string{userClaude, userAgents, userCodex, userOpenCode}
	projectOrder = []string{".claude/skills", ".agents/skills", ".opencode/skills"}
)

// table is every known agent.
var table = []Agent{
	{Name: Claude, Title: "Claude Code", User: []string{userClaude}, Project: []string{".claude/skills"}, Plugins: true},
	{Name: Agents, Title: "Agent Skills (.agents)", User: []string{userAgents}, Project: []string{".agents/skills"}},
	{Name: Codex, Title: "Codex", User: []string{userCodex}, Project: []string{".agents/skills"}},
	{Name: OpenCode, Title: "OpenCode", User: []string{userOpenCode, userClaude, userAgents},
		Project: []string{".opencode/skills", ".claude/skills", ".agents/skills"}},
}

// Names lists the names of every known agent.
func Names() []string {
	out := make([]string, len(table))
	for i, a := range table {
		out[i] = a.Name
	}
	return out
}

// DefaultLoad are the agents whose folders discovery reads when neither
// --agent nor config agents: says otherwise: every known agent (SPEC §3),
// so that a skill installed for any of them is listed, shown and removed.
var DefaultLoad = Names()

// DefaultInstall is the agent install writes for by default.
const DefaultInstall = Claude

// Lookup returns the agent called name.
func Lookup(name string) (Agent, bool) {
	for _, a := range table {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// UnknownError is an agent name that is not in the table.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown agent %q: use one of %s", e.Name, strings.Join(Names(), ", "))
}

// Env says where the user's folders are.
type Env struct {
	Home string
	// Getenv reads CLAUDE_CONFIG_DIR; nil reads nothing.
	Getenv func(string) string
}

// ClaudeDir is Claude Code's configuration folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func (e Env) ClaudeDir() string {
	if e.Getenv != nil {
		if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Clean(d)
		}
	}
	return filepath.Join(e.Home, ".claude")
}

func (e Env) userDir(key string) string {
	if key == userClaude {
		return filepath.Join(e.ClaudeDir(), "skills")
	}
	return filepath.Join(e.Home, filepath.FromSlash(key))
}

// Folder is a skill folder and the agents that load it.
type Folder struct {
	Dir    string
	Agents []string
}

// UserFolders lists the user skill folders the named agents load, lowest
// precedence first, each once.
func UserFolders(names []string, env Env) []Folder {
	return folders(names, userOrder, func(a Agent) []string { return a.User }, env.userDir)
}

// ProjectFolders lists the skill folders the named agents load in the
// project folder dir, lowest precedence first, each once.
func ProjectFolders(names []string, dir string) []Folder {
	return folders(names, projectOrder, func(a Agent) []string { return a.Project },
		func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) })
}

func folders(names, order []string, of func(Agent) []string, path func(string) string) []Folder {
	var out []Folder
	for _, key := range order {
		var by []string
		for _, n := range names {
			a, ok := Lookup(n)
			if !ok {
				continue
			}
			for _, k := range of(a) {
				if k == key && !slices.Contains(by, n) {
					by = append(by, n)
				}
			}
		}
		if len(by) > 0 {
			out = append(out, Folder{Dir: path(key), Agents: by})
		}
	}
	return out
}

// LoadsPlugins reports whether any of the named agents loads Claude Code plugins.
func LoadsPlugins(names []string) bool {
	for _, n := range names {
		if a, ok := Lookup(n); ok && a.Plugins {
			return true
		}
	}
	return false
}

// InstallDir is the folder a skill for the named agent is installed into:
// its first user folder, or its first project folder under projectTop.
func InstallDir(name string, project bool, projectTop string, env Env) (string, error) {
	a, ok := Lookup(name)
	if !ok {
		return "", &UnknownError{Name: name}
	}
	if project {
		return filepath.Join(projectTop, filepath.FromSlash(a.Project[0])), nil
	}
	return env.userDir(a.User[0]), nil
}

// RepoTop is the nearest ancestor of dir holding .git, or "" when there is none.
func RepoTop(dir string) string {
	d := filepath.Clean(dir)
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// ProjectDirs lists the folders whose project skill folders apply in cwd:
// from the repository top down to cwd, farthest first; outside a
// repository, cwd alone (SPEC §3).
func ProjectDirs(cwd string) []string {
	cwd = filepath.Clean(cwd)
	top := RepoTop(cwd)
	if top == "" {
		return []string{cwd}
	}
	var dirs []string
	d := cwd
	for {
		dirs = append(dirs, d)
		if d == top {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}
