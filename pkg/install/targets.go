package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillctl/skillctl/pkg/agents"
)

// Scopes.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// ErrNoHome: user-scope targets need a home folder.
var ErrNoHome = errors.New("no home folder: set HOME")

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

// TargetRoots lists the target roots: Dir, else the install folder of each
// agent (pkg/agents) in the scope: user (the home folder) or project (the
// repository top, or the working folder when there is no repository).
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
	names := o.Agents
	if len(names) == 0 {
		names = []string{agents.DefaultInstall}
	}
	var project bool
	var top string
	switch o.Scope {
	case "", ScopeUser:
		if o.Home == "" {
			return nil, ErrNoHome
		}
	case ScopeProject:
		project = true
		if top = agents.RepoTop(o.Cwd); top == "" {
			top = o.Cwd
		}
	default:
		return nil, fmt.Errorf("the scope must be user or project, not %q", o.Scope)
	}
	var roots []string
	for _, n := range names {
		d, err := agents.InstallDir(n, project, top, agents.Env{Home: o.Home, Getenv: getenv})
		if err != nil {
			return nil, err
		}
		if d = filepath.Clean(d); !slices.Contains(roots, d) {
			roots = append(roots, d)
		}
	}
	return roots, nil
}

// LoadRoots lists the skill folders the agents of o load in o's scope
// (every folder from the repository top down to the working folder, for
// the project scope): where a namesake of an installed skill may be.
func LoadRoots(o TargetOptions) ([]string, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	names := o.Agents
	if len(names) == 0 {
		names = agents.Names()
	}
	var out []string
	switch o.Scope {
	case "", ScopeUser:
		if o.Home == "" {
			return nil, ErrNoHome
		}
		for _, f := range agents.UserFolders(names, agents.Env{Home: o.Home, Getenv: getenv}) {
			out = append(out, filepath.Clean(f.Dir))
		}
	case ScopeProject:
		if o.Cwd == "" {
			return nil, nil
		}
		for _, dir := range agents.ProjectDirs(o.Cwd) {
			for _, f := range agents.ProjectFolders(names, dir) {
				out = append(out, filepath.Clean(f.Dir))
			}
		}
	default:
		return nil, fmt.Errorf("the scope must be user or project, not %q", o.Scope)
	}
	return out, nil
}
