// Package config reads skillctl's configuration files and merges them:
// $XDG_CONFIG_HOME/skillctl/config.yaml, the nearest .skillctl.yaml above the
// working folder, then the file given with --config (later wins).
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/skillctl/skillctl/pkg/agents"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Permission actions.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
)

// PermissionRule maps a skill name pattern (* wildcards) to an action.
type PermissionRule struct {
	Pattern string `json:"pattern"`
	Action  string `json:"action"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

// Run holds the run: section.
type Run struct {
	DefaultMode      string        `json:"defaultMode,omitempty"`
	Timeout          time.Duration `json:"timeout,omitempty"`
	EnableDirectMode *bool         `json:"enableDirectMode,omitempty"`
	Isolation        string        `json:"isolation,omitempty"`
	ConfirmDangerous *bool         `json:"confirmDangerous,omitempty"`
}

// RuleLevel is one entry of validate.rules: a rule id and the level it is
// set to (off, info, warning or error), with where it was set.
type RuleLevel struct {
	Rule  string `json:"rule"`
	Level string `json:"level"`
	File  string `json:"file"`
	Line  int    `json:"line"`
}

// ExcludePattern is one entry of validate.exclude: a pattern in .gitignore
// syntax, relative to Base — the folder of the file that sets it, or ""
// for the user's own config file (the working folder's repository top).
type ExcludePattern struct {
	Glob string `json:"glob"`
	Base string `json:"base,omitempty"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// Validate holds the validate: section, a lint preference that a
// project's file may set freely.
type Validate struct {
	// Rules in merge order: a later entry for the same rule wins.
	Rules   []RuleLevel      `json:"rules,omitempty"`
	Exclude []ExcludePattern `json:"exclude,omitempty"`
}

// Levels returns the level each rule is set to, the last setting winning.
func (v Validate) Levels() map[string]string {
	if len(v.Rules) == 0 {
		return nil
	}
	m := make(map[string]string, len(v.Rules))
	for _, r := range v.Rules {
		m[r.Rule] = r.Level
	}
	return m
}

// Git holds the git: section.
type Git struct {
	// Timeout bounds each git command of a git source (0: the default, 120 s).
	Timeout time.Duration `json:"timeout,omitempty"`
}

// Audit holds the audit: section (SPEC §14).
type Audit struct {
	// FailOn is the severity at which audit fails and install refuses
	// ("" means high); a project file may only lower it.
	FailOn string `json:"failOn,omitempty"`
	// Allow lists audit rules the install gate accepts (the user's own
	// configuration only: a project file may not set it).
	Allow []string `json:"allow,omitempty"`
}

// auditRank orders the severities of audit.failOn (none fails on nothing).
var auditRank = map[string]int{"none": 0, "critical": 1, "high": 2, "medium": 3, "low": 4, "info": 5}

// FailOnLevel is audit.failOn, high when unset.
func (a Audit) FailOnLevel() string {
	if a.FailOn == "" {
		return "high"
	}
	return a.FailOn
}

// DefaultGitTimeout is git.timeout when nothing sets it.
const DefaultGitTimeout = 120 * time.Second

// Config is the merged configuration.
type Config struct {
	// Paths are extra skill roots (absolute, resolved against the file's folder).
	Paths []string `json:"paths,omitempty"`
	// Agents picks the agent folder sets.
	Agents []string `json:"agents,omitempty"`
	// Disabled names skills left out of index (patterns with * allowed).
	Disabled []string `json:"disabled,omitempty"`
	// Permissions are checked in order; the first match wins.
	Permissions []PermissionRule `json:"permissions,omitempty"`
	Run         Run              `json:"run"`
	Validate    Validate         `json:"validate"`
	Git         Git              `json:"git"`
	Audit       Audit            `json:"audit"`
	// Files are the files that were read, in merge order.
	Files []string `json:"files,omitempty"`
	// Warnings name what was ignored: an untrusted file, a project setting
	// that would loosen (file:line: what and why).
	Warnings []string `json:"warnings,omitempty"`
}

// DirectModeEnabled reports whether run --mode direct is allowed (default yes).
func (c *Config) DirectModeEnabled() bool {
	return c.Run.EnableDirectMode == nil || *c.Run.EnableDirectMode
}

// Error is a configuration mistake, naming the file and line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// FileName is the per-project config file name.
const FileName = ".skillctl.yaml"

// File is one config file to read.
type File struct {
	Path string
	// Project is the .skillctl.yaml of the working folder's repository
	// (or of the working folder, outside one): it may only tighten (SPEC §9).
	Project bool
	// Explicit is the file named with --config: always read, a missing one
	// is an error, and it is trusted as the user's own choice.
	Explicit bool
}

// Locate returns the config files that apply, in merge order: the user file
// (when it exists), the nearest .skillctl.yaml from cwd up to the top of
// its repository — outside a repository, in cwd only — and explicit.
func Locate(xdgConfigHome, home, cwd, explicit string) []File {
	var files []File
	if xdgConfigHome == "" && home != "" {
		xdgConfigHome = filepath.Join(home, ".config")
	}
	if xdgConfigHome != "" {
		p := filepath.Join(xdgConfigHome, "skillctl", "config.yaml")
		if isFile(p) {
			files = append(files, File{Path: p})
		}
	}
	if cwd != "" {
		for _, d := range projectDirs(cwd) {
			p := filepath.Join(d, FileName)
			if isFile(p) {
				files = append(files, File{Path: p, Project: true})
				break
			}
		}
	}
	if explicit != "" {
		files = append(files, File{Path: explicit, Explicit: true})
	}
	return files
}

// projectDirs lists cwd and its parents up to the repository top, nearest
// first (cwd alone outside a repository).
func projectDirs(cwd string) []string {
	dirs := agents.ProjectDirs(cwd)
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Load reads and merges the files in order. A file other than the
// explicit one that is not trusted (Untrusted) is skipped with a warning.
func Load(files ...File) (*Config, error) {
	c := &Config{}
	for _, f := range files {
		if !f.Explicit {
			if why := Untrusted(f.Path); why != "" {
				c.Warnings = append(c.Warnings, fmt.Sprintf("ignored the config file %s: %s", f.Path, why))
				continue
			}
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, &Error{File: f.Path, Msg: "config file does not exist"}
			}
			return nil, &Error{File: f.Path, Msg: err.Error()}
		}
		scope := ""
		if f.Project {
			scope = filepath.Dir(f.Path)
			if top := agents.RepoTop(scope); top != "" {
				scope = top
			}
		}
		if err := c.merge(f.Path, data, scope, f.Project || f.Explicit); err != nil {
			return nil, err
		}
		c.Files = append(c.Files, f.Path)
	}
	return c, nil
}

// Parse merges one file's content into a fresh config (for tests and tools).
func Parse(file string, data []byte) (*Config, error) {
	c := &Config{}
	if err := c.merge(file, data, "", true); err != nil {
		return nil, err
	}
	c.Files = []string{file}
	return c, nil
}

// merge reads one file into c. project, when set, is the folder of a
// project file's repository: the file may then only tighten what c holds.
// anchored says whether the file's exclude patterns are relative to its
// own folder (a project or explicit file) rather than to the working
// folder's repository (the user's file).
func (c *Config) merge(file string, data []byte, project string, anchored bool) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		if _, err := fmt.Sscanf(msg, "line %d:", &line); err == nil {
			msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
		return &Error{File: file, Line: line, Msg: "invalid YAML: " + msg}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return &Error{File: file, Line: root.Line, Msg: "config must be a mapping of keys"}
	}
	dir := filepath.Dir(file)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	errAt := func(n *yaml.Node, format string, a ...any) error {
		return &Error{File: file, Line: n.Line, Msg: fmt.Sprintf(format, a...)}
	}
	loosens := func(n *yaml.Node, what string) bool {
		if project == "" {
			return false
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d: ignored %s: a project's %s may only tighten the configuration", file, n.Line, what, FileName))
		return true
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return errAt(k, "key %q appears twice", k.Value)
		}
		seen[k.Value] = true
		switch k.Value {
		case "paths":
			l, err := strList(v, file, "paths")
			if err != nil {
				return err
			}
			for _, p := range l {
				if strings.HasPrefix(p, "~/") {
					if h, err := os.UserHomeDir(); err == nil {
						p = filepath.Join(h, p[2:])
					}
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				p = filepath.Clean(p)
				if project != "" && !skill.Within(project, p) && loosens(v, "paths: "+p+" (outside "+project+")") {
					continue
				}
				c.Paths = append(c.Paths, p)
			}
		case "agents":
			l, err := strList(v, file, "agents")
			if err != nil {
				return err
			}
			for _, a := range l {
				switch a {
				case "claude", "agents", "codex", "opencode":
				default:
					return errAt(v, "unknown agent %q (use claude, agents, codex or opencode)", a)
				}
			}
			c.Agents = l
		case "disabled":
			l, err := strList(v, file, "disabled")
			if err != nil {
				return err
			}
			c.Disabled = append(c.Disabled, l...)
		case "permissions":
			if v.Kind != yaml.MappingNode {
				return errAt(v, "permissions must map skill name patterns to allow, ask or deny")
			}
			var rules []PermissionRule
			for j := 0; j+1 < len(v.Content); j += 2 {
				pk, pv := v.Content[j], v.Content[j+1]
				act := strings.ToLower(pv.Value)
				if pv.Kind != yaml.ScalarNode || (act != Allow && act != Ask && act != Deny) {
					return errAt(pv, "permission for %q must be allow, ask or deny", pk.Value)
				}
				if act == Allow && loosens(pv, fmt.Sprintf("permissions: %s: allow", pk.Value)) {
					continue
				}
				rules = append(rules, PermissionRule{Pattern: pk.Value, Action: act, File: file, Line: pk.Line})
			}
			// a later file's rules are checked first
			c.Permissions = append(rules, c.Permissions...)
		case "run":
			if err := c.mergeRun(file, v, loosens); err != nil {
				return err
			}
		case "validate":
			base := ""
			if anchored {
				base = dir
			}
			if err := c.mergeValidate(file, v, base); err != nil {
				return err
			}
		case "git":
			if v.Kind != yaml.MappingNode {
				return errAt(v, "git must be a mapping (git: {timeout: 2m})")
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				gk, gv := v.Content[j], v.Content[j+1]
				if gk.Value != "timeout" {
					return errAt(gk, "unknown key git.%s (known: timeout)", gk.Value)
				}
				d, err := ParseTimeout(gv.Value)
				if gv.Kind != yaml.ScalarNode || err != nil {
					return errAt(gv, "git.timeout must be a duration like 2m (or milliseconds)")
				}
				cur := c.Git.Timeout
				if cur == 0 {
					cur = DefaultGitTimeout
				}
				if d > cur && loosens(gv, fmt.Sprintf("git.timeout: %s (higher than %v)", gv.Value, cur)) {
					continue
				}
				c.Git.Timeout = d
			}
		case "audit":
			if v.Kind != yaml.MappingNode {
				return errAt(v, "audit must be a mapping (audit: {failOn: high, allow: [rule]})")
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				ak, av := v.Content[j], v.Content[j+1]
				switch ak.Value {
				case "failOn":
					lvl := strings.ToLower(av.Value)
					if _, ok := auditRank[lvl]; av.Kind != yaml.ScalarNode || !ok {
						return errAt(av, "audit.failOn must be critical, high, medium, low, info or none, not %q", av.Value)
					}
					if auditRank[lvl] < auditRank[c.Audit.FailOnLevel()] &&
						loosens(av, fmt.Sprintf("audit.failOn: %s (looser than %s)", lvl, c.Audit.FailOnLevel())) {
						continue
					}
					c.Audit.FailOn = lvl
				case "allow":
					l, err := strList(av, file, "audit.allow")
					if err != nil {
						return err
					}
					if len(l) > 0 && loosens(av, "audit.allow: "+strings.Join(l, ", ")) {
						continue
					}
					c.Audit.Allow = append(c.Audit.Allow, l...)
				default:
					return errAt(ak, "unknown key audit.%s (known: failOn, allow)", ak.Value)
				}
			}
		default:
			return errAt(k, "unknown key %q (known: paths, agents, disabled, permissions, run, validate, git, audit)", k.Value)
		}
	}
	return nil
}

func (c *Config) mergeRun(file string, v *yaml.Node, loosens func(*yaml.Node, string) bool) error {
	errAt := func(n *yaml.Node, format string, a ...any) error {
		return &Error{File: file, Line: n.Line, Msg: fmt.Sprintf(format, a...)}
	}
	if v.Kind != yaml.MappingNode {
		return errAt(v, "run must be a mapping")
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			return errAt(val, "run.%s must be a single value", k.Value)
		}
		switch k.Value {
		case "defaultMode":
			if val.Value != "sandbox" && val.Value != "direct" && val.Value != "auto" {
				return errAt(val, "run.defaultMode must be auto, sandbox or direct, not %q", val.Value)
			}
			c.Run.DefaultMode = val.Value
		case "timeout":
			d, err := ParseTimeout(val.Value)
			if err != nil {
				return errAt(val, "run.timeout: %v", err)
			}
			cur := c.Run.Timeout
			if cur == 0 {
				cur = DefaultTimeout
			}
			if d > cur && loosens(val, fmt.Sprintf("run.timeout: %s (higher than %v)", val.Value, cur)) {
				continue
			}
			c.Run.Timeout = d
		case "enableDirectMode", "confirmDangerous":
			b, err := strconv.ParseBool(val.Value)
			if err != nil {
				return errAt(val, "run.%s must be true or false", k.Value)
			}
			if k.Value == "enableDirectMode" {
				if b && !c.DirectModeEnabled() && loosens(val, "run.enableDirectMode: true") {
					continue
				}
				c.Run.EnableDirectMode = &b
			} else {
				if !b && loosens(val, "run.confirmDangerous: false") {
					continue
				}
				c.Run.ConfirmDangerous = &b
			}
		case "isolation":
			switch val.Value {
			case "auto", "bwrap", "namespaces", "landlock", "seatbelt", "none":
			default:
				return errAt(val, "run.isolation must be auto, bwrap, namespaces, landlock, seatbelt or none")
			}
			cur := c.Run.Isolation
			if cur == "" {
				cur = "auto"
			}
			if isolationRank[val.Value] < isolationRank[cur] && loosens(val, "run.isolation: "+val.Value+" (weaker than "+cur+")") {
				continue
			}
			c.Run.Isolation = val.Value
		default:
			return errAt(k, "unknown key run.%s (known: defaultMode, timeout, enableDirectMode, isolation, confirmDangerous)", k.Value)
		}
	}
	return nil
}

// levelNames are the levels a validate rule can be set to.
var levelNames = []string{"off", "info", "warning", "error"}

func (c *Config) mergeValidate(file string, v *yaml.Node, base string) error {
	errAt := func(n *yaml.Node, format string, a ...any) error {
		return &Error{File: file, Line: n.Line, Msg: fmt.Sprintf(format, a...)}
	}
	if v.Kind != yaml.MappingNode {
		return errAt(v, "validate must be a mapping with rules: and exclude:")
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "rules":
			if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
				continue
			}
			if val.Kind != yaml.MappingNode {
				return errAt(val, "validate.rules must map rule ids to off, info, warning or error")
			}
			for j := 0; j+1 < len(val.Content); j += 2 {
				rk, rv := val.Content[j], val.Content[j+1]
				lvl := strings.ToLower(rv.Value)
				if rv.Kind != yaml.ScalarNode || !slices.Contains(levelNames, lvl) {
					if rv.Kind == yaml.ScalarNode && rv.Tag == "!!bool" && rv.Value == "false" {
						return errAt(rv, "validate.rules.%s: write off (quoted or not) rather than false", rk.Value)
					}
					return errAt(rv, "validate.rules.%s must be off, info, warning or error, not %q", rk.Value, rv.Value)
				}
				c.Validate.Rules = append(c.Validate.Rules, RuleLevel{Rule: rk.Value, Level: lvl, File: file, Line: rk.Line})
			}
		case "exclude":
			var items []*yaml.Node
			switch {
			case val.Kind == yaml.ScalarNode && val.Tag == "!!null":
			case val.Kind == yaml.ScalarNode:
				items = []*yaml.Node{val}
			case val.Kind == yaml.SequenceNode:
				items = val.Content
			default:
				return errAt(val, "validate.exclude must be a list of patterns (.gitignore syntax)")
			}
			for _, it := range items {
				if it.Kind != yaml.ScalarNode {
					return errAt(it, "validate.exclude must be a list of patterns (.gitignore syntax)")
				}
				if strings.TrimSpace(it.Value) == "" {
					return errAt(it, "validate.exclude: a pattern is empty")
				}
				c.Validate.Exclude = append(c.Validate.Exclude, ExcludePattern{Glob: it.Value, Base: base, File: file, Line: it.Line})
			}
		default:
			return errAt(k, "unknown key validate.%s (known: rules, exclude)", k.Value)
		}
	}
	return nil
}

// DefaultTimeout is a script's timeout when nothing sets one.
const DefaultTimeout = 30 * time.Second

// isolationRank orders the isolation settings from weakest to strongest;
// auto picks the strongest tier available, so only bwrap (seatbelt on
// macOS) matches it.
var isolationRank = map[string]int{"none": 0, "landlock": 1, "seatbelt": 3, "namespaces": 2, "bwrap": 3, "auto": 3}

// ParseTimeout reads a duration ("30s", "2m") or a number of milliseconds,
// from 1 ms to 24 h.
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if _, err := strconv.ParseInt(s, 10, 64); err == nil || isRange(err) {
		ms, err := skill.ParseTimeoutMS(s)
		if err != nil {
			return 0, err
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (like 30s or 2m, or milliseconds)", s)
	}
	if err := skill.CheckTimeout(d); err != nil {
		return 0, err
	}
	return d, nil
}

func isRange(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}

func strList(v *yaml.Node, file, key string) ([]string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		return []string{v.Value}, nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range v.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, &Error{File: file, Line: c.Line, Msg: key + " must be a list of strings"}
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	return nil, &Error{File: file, Line: v.Line, Msg: key + " must be a list of strings"}
}

// MatchPattern reports whether name matches a pattern where * matches any run of characters.
func MatchPattern(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	for i := 1; i < len(parts)-1; i++ {
		j := strings.Index(name, parts[i])
		if j < 0 {
			return false
		}
		name = name[j+len(parts[i]):]
	}
	return strings.HasSuffix(name, parts[len(parts)-1])
}

// Permission returns the action of the first rule matching the skill's name
// or id, and the rule; "" when no rule matches.
func (c *Config) Permission(name, id string) (string, *PermissionRule) {
	for i, r := range c.Permissions {
		if MatchPattern(r.Pattern, name) || MatchPattern(r.Pattern, id) {
			return r.Action, &c.Permissions[i]
		}
	}
	return "", nil
}

// IsDisabled reports whether a skill is disabled by name or id.
func (c *Config) IsDisabled(name, id string) bool {
	for _, p := range c.Disabled {
		if MatchPattern(p, name) || MatchPattern(p, id) {
			return true
		}
	}
	return false
}
