package run

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestRenderGolden renders every testdata/render/*.txtar (sections: body.md,
// input.json, args one per line, allow-missing) and compares the output, or
// the error, with the .golden file next to it.
func TestRenderGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/render/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, file := range cases {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			require.NoError(t, err)
			rc := RenderContext{Cwd: "/work/project", SkillDir: "/skills/release-notes", SkillName: "release-notes",
				Now: time.Date(2026, 5, 4, 12, 30, 45, 0, time.FixedZone("CEST", 2*3600))}
			var body string
			for _, f := range ar.Files {
				switch f.Name {
				case "body.md":
					body = string(f.Data)
				case "input.json":
					rc.Input, err = decodeObject(f.Data)
					require.NoError(t, err)
				case "args":
					rc.Args = strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n")
				case "allow-missing":
					rc.AllowMissing = true
				default:
					t.Fatalf("%s: unknown section %s", file, f.Name)
				}
			}
			out, err := Render(body, rc)
			if err != nil {
				var me *MissingInputError
				require.True(t, errors.As(err, &me), "unexpected error type: %v", err)
				assert.NotEmpty(t, me.Error())
				out = "ERROR: " + err.Error() + "\n"
			}
			golden := strings.TrimSuffix(file, ".txtar") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./pkg/run -update to create it")
			assert.Equal(t, string(want), out)
		})
	}
}

func TestRenderMissingListsEveryName(t *testing.T) {
	_, err := Render("{{input.a}} {{input.b.c}} {{input.a}} {{system.nope}}", RenderContext{SkillName: "s"})
	var me *MissingInputError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []string{"a", "b.c"}, me.Missing)
	assert.Equal(t, []string{"{{system.nope}}"}, me.Unknown)
	assert.Contains(t, err.Error(), "missing input for")
}

// Hostile bodies and inputs (SPEC §7, §15): rendering is linear and its
// output capped; $ARGUMENTS[N] takes small N only.
func TestRenderHostileInput(t *testing.T) {
	rc := RenderContext{SkillName: "hostile", Now: time.Unix(0, 0)}
	t.Run("2 MiB of {{", func(t *testing.T) {
		body := strings.Repeat("{{", 1<<20) + "}}"
		out, err := Render(body, rc)
		require.NoError(t, err)
		assert.Equal(t, body, out)
	})
	t.Run("{{ with a far }}", func(t *testing.T) {
		body := "{{" + strings.Repeat("x", 4096) + "}} {{system.skillName}}"
		out, err := Render(body, rc)
		require.NoError(t, err)
		assert.Equal(t, "{{"+strings.Repeat("x", 4096)+"}} hostile", out)
	})
	t.Run("$ARGUMENTS repeated", func(t *testing.T) {
		rc := rc
		rc.Args = []string{strings.Repeat("a", 1<<20)}
		_, err := Render(strings.Repeat("$ARGUMENTS ", 3200), rc)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "larger than 8 MiB")
	})
	t.Run("input repeated", func(t *testing.T) {
		rc := rc
		rc.Input = map[string]any{"x": strings.Repeat("b", 1<<20)}
		_, err := Render(strings.Repeat("{{input.x}}", 9), rc)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "larger than 8 MiB")
	})
	t.Run("large argument numbers stay as written", func(t *testing.T) {
		rc := rc
		rc.Args = make([]string, 1200)
		for i := range rc.Args {
			rc.Args[i] = "v" + strconv.Itoa(i)
		}
		out, err := Render("$ARGUMENTS[99999999999999999999] $ARGUMENTS[1000] $1000 $ARGUMENTS[999] $999 $ARGUMENTS[x]", rc)
		require.NoError(t, err)
		assert.Equal(t, "$ARGUMENTS[99999999999999999999] $ARGUMENTS[1000] $1000 v999 v999 "+strings.Join(rc.Args, " ")+"[x]", out)
	})
}
