package index

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkSchema reports why v is not a well-formed JSON Schema of the kinds
// tool parameters use, or "" when it is.
func checkSchema(path string, v any) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return []string{path + ": a schema must be a JSON object"}
	}
	var errs []string
	allowed := map[string]bool{"type": true, "description": true, "enum": true, "properties": true,
		"required": true, "additionalProperties": true, "items": true}
	for k := range m {
		if !allowed[k] {
			errs = append(errs, fmt.Sprintf("%s: unexpected keyword %q", path, k))
		}
	}
	typ, _ := m["type"].(string)
	switch typ {
	case "object", "string", "number", "integer", "boolean", "array", "null":
	default:
		errs = append(errs, fmt.Sprintf("%s: type %v is not a JSON Schema type", path, m["type"]))
	}
	if d, ok := m["description"]; ok {
		if _, ok := d.(string); !ok {
			errs = append(errs, path+": description must be a string")
		}
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			errs = append(errs, path+": enum must be a non-empty array")
		}
		seen := map[any]bool{}
		for _, x := range list {
			if typ == "string" {
				if _, ok := x.(string); !ok {
					errs = append(errs, fmt.Sprintf("%s: enum value %v is not a string", path, x))
				}
			}
			if seen[x] {
				errs = append(errs, fmt.Sprintf("%s: enum value %v appears twice", path, x))
			}
			seen[x] = true
		}
	}
	props := map[string]any{}
	if p, ok := m["properties"]; ok {
		if typ != "object" {
			errs = append(errs, path+": properties on a non-object")
		}
		props, ok = p.(map[string]any)
		if !ok {
			errs = append(errs, path+": properties must be an object")
		}
		for name, sub := range props {
			errs = append(errs, checkSchema(path+".properties."+name, sub)...)
		}
	}
	if r, ok := m["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			errs = append(errs, path+": required must be an array")
		}
		for _, x := range list {
			name, ok := x.(string)
			if _, declared := props[name]; !ok || !declared {
				errs = append(errs, fmt.Sprintf("%s: required %v is not a declared property", path, x))
			}
		}
	}
	if a, ok := m["additionalProperties"]; ok {
		switch a.(type) {
		case bool, map[string]any:
		default:
			errs = append(errs, path+": additionalProperties must be a boolean or a schema")
		}
	}
	return errs
}

func TestCheckSchemaCatchesMistakes(t *testing.T) {
	// The checker used below must be able to fail.
	bad := []string{
		`[]`,
		`{"type":"thing"}`,
		`{"type":"object","required":["x"]}`,
		`{"type":"string","enum":[]}`,
		`{"type":"string","enum":["a","a"]}`,
		`{"type":"object","properties":{"x":{"type":5}}}`,
		`{"type":"object","additionalProperties":"yes"}`,
	}
	for _, b := range bad {
		var v any
		require.NoError(t, json.Unmarshal([]byte(b), &v))
		assert.NotEmpty(t, checkSchema("p", v), b)
	}
}

func TestToolsAreValidFunctionDefinitions(t *testing.T) {
	items, _, _ := fixtureItems(t)
	b, err := Tools(items)
	require.NoError(t, err)

	var tools []map[string]any
	require.NoError(t, json.Unmarshal(b, &tools), "tools output must be a JSON array")
	names := []string{"alpha-by-name", "escapes", "multi-line", "padded", "unicode-notes"}
	require.Len(t, tools, 2+len(names))

	for _, tool := range tools {
		name, _ := tool["name"].(string)
		require.NotEmpty(t, name)
		desc, _ := tool["description"].(string)
		assert.NotEmpty(t, desc, name)
		params, ok := tool["parameters"].(map[string]any)
		require.True(t, ok, "%s: parameters must be an object", name)
		assert.Equal(t, "object", params["type"], "%s: parameters must be an object schema", name)
		assert.Empty(t, checkSchema(name, params), "%s", name)
	}

	skillTool := tools[0]
	assert.Equal(t, ToolSkill, skillTool["name"])
	enum := skillTool["parameters"].(map[string]any)["properties"].(map[string]any)["name"].(map[string]any)["enum"]
	assert.Equal(t, []any{"alpha-by-name", "escapes", "multi-line", "padded", "unicode-notes"}, enum)
	desc := skillTool["description"].(string)
	assert.Contains(t, desc, "\n- escapes: Tom & Jerry's <b>\"tricks\"</b> -> done & dusted")
	assert.Contains(t, desc, "\n- multi-line: First line of the description. Second line, kept on its own line.")
	assert.Equal(t, []any{"name"}, skillTool["parameters"].(map[string]any)["required"])

	read := tools[1]
	assert.Equal(t, ToolReadFile, read["name"])
	props := read["parameters"].(map[string]any)["properties"].(map[string]any)
	assert.Contains(t, props, "skill_name")
	assert.Contains(t, props, "file_path")
	assert.ElementsMatch(t, []any{"skill_name", "file_path"}, read["parameters"].(map[string]any)["required"])

	for i, n := range names {
		tool := tools[2+i]
		assert.Equal(t, ToolSkillPrefix+n, tool["name"])
	}
	assert.False(t, strings.Contains(string(b), "hidden-from-model"))
}

func TestToolsWithoutSkills(t *testing.T) {
	b, err := Tools(nil)
	require.NoError(t, err)
	var tools []map[string]any
	require.NoError(t, json.Unmarshal(b, &tools))
	require.Len(t, tools, 2)
	for _, tool := range tools {
		assert.Empty(t, checkSchema(tool["name"].(string), tool["parameters"]))
	}
	assert.Contains(t, tools[0]["description"], "(none)")
}
