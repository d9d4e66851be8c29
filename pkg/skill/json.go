package skill

// Summary is the JSON shape of a skill in listings (list --json). Keys are
// stable; see docs/json.md.
type Summary struct {
	Name        string   `json:"name"`
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Plugin      string   `json:"plugin,omitempty"`
	Path        string   `json:"path"`
	File        string   `json:"file,omitempty"`
	Mode        string   `json:"mode"`
	Version     string   `json:"version,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Tokens      int      `json:"tokens,omitempty"`
	// Agents are the agents that load the skill's folder.
	Agents []string `json:"agents,omitempty"`
	// Installed says where skillctl installed the skill from, when its lock knows.
	Installed *Provenance `json:"installed,omitempty"`
	// Status is ok, shadowed or broken.
	Status     string `json:"status"`
	ShadowedBy string `json:"shadowedBy,omitempty"`
	// Error says why a broken skill could not be loaded.
	Error string `json:"error,omitempty"`
	// Warnings are problems the loader recovered from.
	Warnings []Diagnostic `json:"warnings,omitempty"`
}

// Provenance is where an installed skill came from, as the lock of its
// folder records it.
type Provenance struct {
	// Kind is archive, folder, url (and, with git sources, git or wellknown).
	Kind     string `json:"kind"`
	Location string `json:"location"`
	// SHA256 is the archive's digest; Commit the resolved commit of a git source.
	SHA256      string `json:"sha256,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Version     string `json:"version,omitempty"`
	InstalledAt string `json:"installedAt"`
	// TreeSHA256 is the digest of the files as installed.
	TreeSHA256 string `json:"treeSha256,omitempty"`
}

// Status values of a Summary.
const (
	StatusOK       = "ok"
	StatusShadowed = "shadowed"
	StatusBroken   = "broken"
)

// SkillSummary describes a loaded skill.
func SkillSummary(sk *Skill) Summary {
	return Summary{Name: sk.Name, ID: sk.ID, Description: sk.Description, Source: sk.Source, Plugin: sk.Plugin,
		Path: sk.Dir, File: sk.File, Mode: sk.EffectiveMode(), Version: sk.Exec.Version, Tags: sk.Exec.Tags,
		Tokens: sk.Tokens, Status: StatusOK, Warnings: sk.Diagnostics}
}

// Definition is the full JSON shape of one skill (show --json).
type Definition struct {
	Name          string         `json:"name"`
	ID            string         `json:"id"`
	Description   string         `json:"description"`
	Source        string         `json:"source"`
	Plugin        string         `json:"plugin,omitempty"`
	Path          string         `json:"path"`
	File          string         `json:"file"`
	Mode          string         `json:"mode"`
	License       string         `json:"license,omitempty"`
	Compatibility string         `json:"compatibility,omitempty"`
	AllowedTools  []string       `json:"allowedTools,omitempty"`
	Version       string         `json:"version,omitempty"`
	Author        string         `json:"author,omitempty"`
	Category      string         `json:"category,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	Entrypoint    string         `json:"entrypoint,omitempty"`
	TimeoutMS     int64          `json:"timeout,omitempty"`
	Permissions   []string       `json:"permissions,omitempty"`
	Dangerous     bool           `json:"dangerous,omitempty"`
	Confirm       string         `json:"confirm,omitempty"`
	Metadata      map[string]any `json:"metadata"`
	Content       string         `json:"content"`
	Summary       string         `json:"summary"`
	Tokens        int            `json:"tokens"`
	Files         []File         `json:"files"`
	FileInventory FileInventory  `json:"fileInventory"`
	Warnings      []Diagnostic   `json:"warnings,omitempty"`
	Agents        []string       `json:"agents,omitempty"`
	Installed     *Provenance    `json:"installed,omitempty"`
}

// DefinitionOf describes a skill with its files.
func DefinitionOf(sk *Skill, files []File) Definition {
	if files == nil {
		files = []File{}
	}
	md := sk.Frontmatter
	if md == nil {
		md = map[string]any{}
	}
	return Definition{Name: sk.Name, ID: sk.ID, Description: sk.Description, Source: sk.Source, Plugin: sk.Plugin,
		Path: sk.Dir, File: sk.File, Mode: sk.EffectiveMode(), License: sk.License, Compatibility: sk.Compatibility,
		AllowedTools: sk.AllowedTools, Version: sk.Exec.Version, Author: sk.Exec.Author, Category: sk.Exec.Category,
		Tags: sk.Exec.Tags, Entrypoint: sk.Exec.Entrypoint, TimeoutMS: sk.Exec.TimeoutMS, Permissions: sk.Exec.Permissions,
		Dangerous: sk.Exec.Dangerous, Confirm: sk.Exec.Confirm, Metadata: md, Content: sk.Body, Summary: sk.Summary,
		Tokens: sk.Tokens, Files: files, FileInventory: Inventory(files), Warnings: sk.Diagnostics}
}
