package cmd_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillctl/skillctl/cmd"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"skillctl": func() { os.Exit(cmd.Main()) },
	})
}

// TestScripts drives the real binary through testdata/script/*.txtar with
// HOME and XDG folders inside $WORK.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../testdata/script",
		Setup: func(env *testscript.Env) error {
			home := env.WorkDir + "/home"
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", home+"/.config")
			env.Setenv("XDG_STATE_HOME", home+"/.local/state")
			env.Setenv("XDG_CACHE_HOME", home+"/.cache")
			env.Setenv("NO_COLOR", "")
			env.Setenv("SKILLCTL_PATH", "")
			env.Setenv("CLAUDE_SKILLS_DIR", "")
			env.Setenv("CLAUDE_CONFIG_DIR", "")
			return os.MkdirAll(home, 0o755)
		},
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// envfile VAR FILE: set VAR to FILE's content, trimmed (a
			// commit SHA that git printed, for instance).
			"envfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: envfile VAR FILE")
				}
				ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile(args[1])))
			},
			// genfile PATH SIZE [nul]: a SKILL.md-like file of SIZE bytes
			// (with a NUL byte on its second line when nul is given).
			"genfile": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: genfile PATH SIZE [nul]")
				}
				size, err := strconv.Atoi(args[1])
				ts.Check(err)
				head := "---\nname: generated\ndescription: Generated.\n---\n"
				if len(args) > 2 && args[2] == "nul" {
					head = "---\nname: gen\x00erated\n"
				}
				buf := []byte(head + strings.Repeat("x", max(0, size-len(head))))
				p := ts.MkAbs(args[0])
				ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
				ts.Check(os.WriteFile(p, buf, 0o644))
			},
		},
	})
}
