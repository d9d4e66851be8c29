package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuildInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"from": "file", "n": 1}`), 0o644))
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\n  \"a\": 1,\n  \"b\": }\n"), 0o644))

	tests := []struct {
		name  string
		json  string
		pairs []string
		stdin string
		want  string // compact JSON
		err   string
	}{
		{name: "nothing", want: `{}`},
		{name: "strings", pairs: []string{"name=Ada", "greeting=hello world"}, want: `{"greeting":"hello world","name":"Ada"}`},
		{name: "scalars", pairs: []string{"n=42", "f=1.50", "t=true", "z=null", "q=\"7\""},
			want: `{"f":1.50,"n":42,"q":"7","t":true,"z":null}`},
		{name: "objects stay text", pairs: []string{"o={\"a\":1}", "l=[1,2]"}, want: `{"l":"[1,2]","o":"{\"a\":1}"}`},
		{name: "dotted keys nest", pairs: []string{"user.name=Ada", "user.age=36", "user.address.city=London"},
			want: `{"user":{"address":{"city":"London"},"age":36,"name":"Ada"}}`},
		{name: "later pair wins", pairs: []string{"a=1", "a=2"}, want: `{"a":2}`},
		{name: "empty value", pairs: []string{"a="}, want: `{"a":""}`},
		{name: "value with =", pairs: []string{"expr=a=b"}, want: `{"expr":"a=b"}`},
		{name: "json text", json: `{"a": {"b": [1, 2]}, "c": 1.0}`, want: `{"a":{"b":[1,2]},"c":1.0}`},
		{name: "json and pairs", json: `{"a": {"b": 1}}`, pairs: []string{"a.c=2"}, want: `{"a":{"b":1,"c":2}}`},
		{name: "json file", json: "@" + file, want: `{"from":"file","n":1}`},
		{name: "json stdin", json: "-", stdin: `{"from": "stdin"}`, want: `{"from":"stdin"}`},
		{name: "no key", pairs: []string{"=1"}, err: `input "=1": expected KEY=VALUE`},
		{name: "no equals", pairs: []string{"name"}, err: `input "name": expected KEY=VALUE`},
		{name: "empty part", pairs: []string{"a..b=1"}, err: `key "a..b" has an empty part`},
		{name: "value then object", pairs: []string{"a=1", "a.b=2"}, err: "a is already a value (1), it cannot also hold b"},
		{name: "object then value", pairs: []string{"a.b=1", "a=2"}, err: "a is already an object with keys b"},
		{name: "invalid json", json: `{"a": }`, err: "input JSON: invalid JSON: line 1, column 7"},
		{name: "invalid json file", json: "@" + bad, err: bad + ": invalid JSON: line 3, column 8"},
		{name: "not an object", json: `[1, 2]`, err: "the input must be a JSON object ({\"key\": value, ...}), not an array"},
		{name: "two values", json: `{} {}`, err: "more than one value"},
		{name: "missing file", json: "@" + filepath.Join(dir, "nope.json"), err: "no such file or directory"},
		{name: "empty", json: " ", err: "invalid JSON: empty document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BuildInput(tt.json, tt.pairs, strings.NewReader(tt.stdin))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				var ie *InputError
				require.ErrorAs(t, err, &ie)
				assert.NotEmpty(t, ie.Msg)
				return
			}
			require.NoError(t, err)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
		})
	}
}
