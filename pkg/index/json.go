package index

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Entry is the JSON shape of one skill in `index --format json`. Keys are
// stable; see docs/index.md.
type Entry struct {
	Name        string `json:"name"`
	ID          string `json:"id"`
	Description string `json:"description"`
	Source      string `json:"source"`
	Plugin      string `json:"plugin,omitempty"`
	// Path is the skill folder; Location its SKILL.md with links resolved.
	Path     string `json:"path"`
	Location string `json:"location"`
	// Tokens estimates what loading SKILL.md costs (about four bytes a token).
	Tokens int `json:"tokens"`
}

// JSON is the index as a JSON array of Entry, sorted as given.
func JSON(items []Item) ([]byte, error) {
	entries := make([]Entry, 0, len(items))
	for _, it := range items {
		s := it.Skill
		entries = append(entries, Entry{Name: s.Name, ID: s.ID, Description: s.Description, Source: s.Source,
			Plugin: s.Plugin, Path: it.Dir(), Location: it.Location(), Tokens: s.Tokens})
	}
	return marshal(entries)
}

// Schema is the subset of JSON Schema that tool parameters use.
type Schema struct {
	Type                 string             `json:"type"`
	Description          string             `json:"description,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *bool              `json:"additionalProperties,omitempty"`
}

// Tool is one function-calling tool definition: a name, a description, and
// its parameters as a JSON Schema object.
type Tool struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Parameters  *Schema `json:"parameters"`
}

// Tool names.
const (
	ToolSkill    = "skill"
	ToolReadFile = "read_skill_file"
	// ToolSkillPrefix starts the name of each skill's own tool (skill:<name>).
	ToolSkillPrefix = "skill:"
)

// ToolDefinitions builds the function-calling tools for items: a skill tool
// whose name parameter is an enum of the skills and whose description lists
// them, a read_skill_file tool, and one skill:<name> tool per skill.
func ToolDefinitions(items []Item) []Tool {
	names := make([]string, 0, len(items))
	var list strings.Builder
	for _, it := range items {
		names = append(names, it.Skill.Name)
		list.WriteString("\n- ")
		list.WriteString(oneLine(it.Skill.Name))
		list.WriteString(": ")
		list.WriteString(oneLine(it.Skill.Description))
	}
	if len(names) == 0 {
		names = nil // an empty enum is not valid JSON Schema
		list.WriteString("\n(none)")
	}
	no := false
	skillTool := Tool{
		Name: ToolSkill,
		Description: "Load a skill: returns its instructions (SKILL.md) and the folder it lives in. " +
			"Load a skill before doing a task that matches its description. Available skills:" + list.String(),
		Parameters: &Schema{Type: "object", Properties: map[string]*Schema{
			"name": {Type: "string", Description: "The name of the skill to load.", Enum: names},
		}, Required: []string{"name"}, AdditionalProperties: &no},
	}
	readTool := Tool{
		Name:        ToolReadFile,
		Description: "Read one file of a skill, such as a reference or a template its instructions mention.",
		Parameters: &Schema{Type: "object", Properties: map[string]*Schema{
			"skill_name": {Type: "string", Description: "The name of the skill.", Enum: names},
			"file_path":  {Type: "string", Description: "The path of the file inside the skill folder, for example references/FORMAT.md."},
		}, Required: []string{"skill_name", "file_path"}, AdditionalProperties: &no},
	}
	tools := []Tool{skillTool, readTool}
	yes := true
	for _, it := range items {
		desc := oneLine(it.Skill.Description)
		if desc == "" {
			desc = "Use the " + it.Skill.Name + " skill."
		}
		tools = append(tools, Tool{
			Name:        ToolSkillPrefix + it.Skill.Name,
			Description: desc,
			Parameters: &Schema{Type: "object",
				Description:          "Input for the skill; it receives these values as its input JSON.",
				AdditionalProperties: &yes},
		})
	}
	return tools
}

// Tools is ToolDefinitions as a JSON array.
func Tools(items []Item) ([]byte, error) {
	return marshal(ToolDefinitions(items))
}

// marshal prints one JSON document, indented, with a final newline and
// without HTML escaping.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
