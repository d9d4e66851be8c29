package cmd_test

import (
	"os"
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
	})
}
