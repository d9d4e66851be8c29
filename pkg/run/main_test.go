package run

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/skill"
)

// skillctlBin is a skillctl binary built for the tests: the sandbox helper
// is skillctl itself, re-executed, and is tested for real.
var (
	skillctlBin string
	buildErr    error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skillctl-run-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	skillctlBin, buildErr = buildSkillctl(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildSkillctl builds the skillctl binary, statically (CGO_ENABLED=0), as
// it is shipped.
func buildSkillctl(dir string) (string, error) {
	// go test puts its own GOROOT/bin first on PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("the go tool is not available to build skillctl")
	}
	out := filepath.Join(dir, "skillctl")
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	cmd := exec.Command(goBin, "build", "-o", out, "github.com/skillctl/skillctl")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build skillctl: %v\n%s", err, b)
	}
	return out, nil
}

// writeSkill writes a skill folder with SKILL.md (frontmatter lines after
// name and description) and, when script is not empty, an executable
// scripts/run.sh starting with #!/bin/sh.
func writeSkill(t *testing.T, name string, frontmatter []string, script string) *skill.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	md := "---\nname: " + name + "\ndescription: A test skill.\n" + strings.Join(frontmatter, "\n")
	if len(frontmatter) > 0 {
		md += "\n"
	}
	md += "---\n# " + name + "\n\nHello {{input.name}}.\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644))
	if script != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\n"+script), 0o755))
	}
	s, err := skill.Load(dir, skill.LoadOptions{})
	require.NoError(t, err)
	return s
}
