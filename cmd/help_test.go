package cmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/internal/iostreams"
)

// specExitCodes are the exit codes SPEC §4 defines, and no others.
var specExitCodes = []int{0, 1, 2, 3, 4, 124, 125, 130}

var exitCodeLine = regexp.MustCompile(`^\s+(\d+)\s+\S`)

func TestHelpExitCodesListsExactlyTheSpecCodes(t *testing.T) {
	e := newTestEnv(t)
	code, out, errOut := e.run(t, false, "help", "exit-codes")
	require.Equal(t, 0, code, errOut)
	var got []int
	for _, line := range strings.Split(out, "\n") {
		if m := exitCodeLine.FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			got = append(got, n)
		}
	}
	assert.Equal(t, specExitCodes, got)
}

// runnableCommands is every command a user can run, depth first.
func runnableCommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.Hidden || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if sub.Runnable() {
			out = append(out, sub)
		}
		out = append(out, runnableCommands(sub)...)
	}
	return out
}

// TestEveryCommandHelpEndsWithExitStatusAndExamples: the last two sections
// of every command's help are its exit status, listing only codes SPEC §4
// defines, and its examples.
func TestEveryCommandHelpEndsWithExitStatusAndExamples(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	root := NewRootCmd(NewFactory(ios, func(string) string { return "" }))
	root.InitDefaultHelpCmd()
	paths := [][]string{nil}
	for _, c := range runnableCommands(root) {
		paths = append(paths, strings.Fields(c.CommandPath())[1:])
	}
	require.Greater(t, len(paths), 10)
	for _, p := range paths {
		name := strings.Join(append([]string{"skillctl"}, p...), " ")
		t.Run(name, func(t *testing.T) {
			e := newTestEnv(t)
			code, out, errOut := e.run(t, false, append(p, "--help")...)
			require.Equal(t, 0, code, errOut)
			exit := strings.LastIndex(out, "\nExit status:\n")
			examples := strings.LastIndex(out, "\nExamples:\n")
			require.Positive(t, exit, "%s --help has an exit status", name)
			require.Greater(t, examples, exit, "%s --help ends with its examples, after the exit status", name)
			for _, section := range []string{"\nFlags:\n", "\nGlobal flags:\n", "\nUsage:\n"} {
				assert.Less(t, strings.LastIndex(out, section), exit, "%s: %q comes before the exit status", name, section)
			}
			for _, line := range strings.Split(strings.TrimRight(out[examples+len("\nExamples:\n"):], "\n"), "\n") {
				assert.True(t, strings.HasPrefix(line, "  "), "%s: only examples follow 'Examples:', got %q", name, line)
			}
			status := out[exit:examples]
			var codes int
			for _, line := range strings.Split(status, "\n") {
				if m := exitCodeLine.FindStringSubmatch(line); m != nil {
					n, _ := strconv.Atoi(m[1])
					assert.Contains(t, specExitCodes, n, "%s documents exit code %d, which SPEC §4 does not define", name, n)
					codes++
				}
			}
			assert.Positive(t, codes, "%s lists its exit codes", name)
		})
	}
}

func TestHelpUnknownTopicIsAUsageError(t *testing.T) {
	e := newTestEnv(t)
	code, _, errOut := e.run(t, false, "help", "nope")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `no help for "nope"`)
	code, out, _ := e.run(t, false, "help", "install")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "skillctl install [<source>...]")
}

var envLiteral = regexp.MustCompile(`(?:Getenv|getenv|LookupEnv)\("([A-Za-z_][A-Za-z0-9_]*)"\)`)

// TestEnvironmentTopicNamesEveryVariable reads skillctl's source for every
// variable it looks up by name and checks 'skillctl help environment' names
// it, along with the variables read on skillctl's behalf by the Go runtime
// and libraries (proxies, TMPDIR) and by cobra's completion.
func TestEnvironmentTopicNamesEveryVariable(t *testing.T) {
	read := map[string]bool{
		"HTTPS_PROXY": true, "HTTP_PROXY": true, "NO_PROXY": true, // net/http, for install URLs
		"TMPDIR":                           true,                                                   // os.TempDir, for run workdirs
		"SKILLCTL_COMPLETION_DESCRIPTIONS": true,                                                   // cobra's __complete
		"SystemRoot":                       true, "ComSpec": true, "PATHEXT": true, "WINDIR": true, // pkg/run on Windows
	}
	for _, dir := range []string{".", "../pkg", "../internal/iostreams", "../internal/render"} {
		require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range envLiteral.FindAllStringSubmatch(string(src), -1) {
				read[m[1]] = true
			}
			return nil
		}))
	}
	require.Contains(t, read, "SKILLCTL_PATH", "the source scan finds the variables discovery reads")

	e := newTestEnv(t)
	code, out, _ := e.run(t, false, "help", "environment")
	require.Equal(t, 0, code)
	var missing []string
	for v := range read {
		if !regexp.MustCompile(`(^|[^A-Za-z0-9_$])` + v + `([^A-Za-z0-9_]|$)`).MatchString(out) {
			missing = append(missing, v)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "'skillctl help environment' does not name these variables skillctl reads")
}

// complete drives cobra's hidden __complete command, as the shell scripts
// do, and returns the offered words and the directive line.
func (e *testEnv) complete(t *testing.T, args ...string) (words []string, directive string) {
	t.Helper()
	code, out, errOut := e.run(t, false, append([]string{"__complete"}, args...)...)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.NotEmpty(t, lines)
	directive = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		word, _, _ := strings.Cut(l, "\t")
		words = append(words, word)
	}
	return words, directive
}

// Directives as __complete prints them.
const (
	compDefault    = ":0"
	compNoFile     = ":4"
	compFilterDirs = ":16"
)

func TestCompletion(t *testing.T) {
	e := newTestEnv(t)

	t.Run("skill names", func(t *testing.T) {
		for _, c := range []string{"show", "run"} {
			words, dir := e.complete(t, c, "")
			assert.Equal(t, []string{"alpha", "beta"}, words, c)
			assert.Equal(t, compNoFile, dir, c)
		}
		words, _ := e.complete(t, "show", "be")
		assert.Equal(t, []string{"beta"}, words)
		words, _ = e.complete(t, "show", "alpha", "")
		assert.Empty(t, words, "show takes one skill")
	})

	t.Run("installed skill names for uninstall", func(t *testing.T) {
		target := filepath.Join(e.home, "target")
		code, _, errOut := e.run(t, false, "install", "--dir", target, "-q",
			filepath.Join(e.home, ".claude/skills/alpha"), filepath.Join(e.home, ".claude/skills/beta"))
		require.Equal(t, 0, code, errOut)
		words, dir := e.complete(t, "uninstall", "--dir", target, "")
		assert.Equal(t, []string{"alpha", "beta"}, words)
		assert.Equal(t, compNoFile, dir)
		words, _ = e.complete(t, "uninstall", "--dir", target, "alpha", "")
		assert.Equal(t, []string{"beta"}, words, "names already given are not offered again")
		words, _ = e.complete(t, "uninstall", "")
		assert.Empty(t, words, "nothing is installed in the user folder: its skills were not installed by skillctl")
	})

	t.Run("files of a skill", func(t *testing.T) {
		words, _ := e.complete(t, "show", "alpha", "--file", "")
		assert.Equal(t, []string{"SKILL.md", "scripts/run.sh"}, words)
		words, _ = e.complete(t, "run", "alpha", "--entry", "scr")
		assert.Equal(t, []string{"scripts/run.sh"}, words)
	})

	t.Run("flag values", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"validate", "--format", ""}, []string{"text", "json", "github", "sarif"}},
			{[]string{"index", "--format", ""}, []string{"xml", "catalog", "markdown", "json", "tools", "wellknown"}},
			{[]string{"validate", "--profile", ""}, []string{"default", "spec", "claude-code", "anthropic-api"}},
			{[]string{"run", "--mode", ""}, []string{"auto", "sandbox", "direct"}},
			{[]string{"init", "--mode", ""}, []string{"sandbox", "direct"}},
			{[]string{"install", "--scope", ""}, []string{"user", "project"}},
			{[]string{"uninstall", "--scope", ""}, []string{"user", "project"}},
			{[]string{"list", "--agent", ""}, []string{"claude", "agents", "codex", "opencode"}},
			{[]string{"run", "--isolation", ""}, []string{"auto", "bwrap", "namespaces", "landlock", "seatbelt", "none"}},
			{[]string{"completion", ""}, []string{"bash", "zsh", "fish", "powershell"}},
		} {
			words, dir := e.complete(t, tc.args...)
			assert.Equal(t, tc.want, words, "%v", tc.args)
			assert.Equal(t, compNoFile, dir, "%v", tc.args)
		}
	})

	t.Run("paths", func(t *testing.T) {
		for _, c := range []string{"validate", "install", "index"} {
			_, dir := e.complete(t, c, "")
			assert.Equal(t, compDefault, dir, "%s completes file names", c)
		}
		_, dir := e.complete(t, "pack", "")
		assert.Equal(t, compFilterDirs, dir, "pack completes folder names")
		_, dir = e.complete(t, "list", "")
		assert.Equal(t, compNoFile, dir, "list takes no arguments")
	})

	t.Run("help topics", func(t *testing.T) {
		words, _ := e.complete(t, "help", "e")
		assert.Equal(t, []string{"environment", "exit-codes"}, words)
	})

	t.Run("descriptions are plain text", func(t *testing.T) {
		for _, args := range [][]string{{"validate", "--"}, {"--"}, {"run", "alpha", "--"}, {"index", "--"}, {""}} {
			code, out, errOut := e.run(t, false, append([]string{"__complete"}, args...)...)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "\t", "%v has descriptions", args)
			assert.NotContains(t, out, "`", "%v: no backticks in descriptions", args)
		}
		// help keeps the value names
		code, out, _ := e.run(t, false, "validate", "--help")
		require.Equal(t, 0, code)
		assert.Contains(t, out, "--format FORMAT")
	})
}

// TestVersionInjection: the Makefile's -ldflags -X names the variable that
// Version reports, and --version prints the same as the version command.
func TestVersionInjection(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	assert.Contains(t, string(mk), "-X github.com/skillctl/skillctl/cmd.version=$(VERSION)")

	old := version
	version = "v9.8.7"
	t.Cleanup(func() { version = old })
	e := newTestEnv(t)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := e.run(t, false, args...)
		assert.Equal(t, 0, code)
		assert.Equal(t, "skillctl v9.8.7\n", out, "%v", args)
	}
	_, out, _ := e.run(t, false, "version", "--json")
	assert.Contains(t, out, `"version": "v9.8.7"`)
}

// TestHelpPager: help longer than the terminal goes through $PAGER; help
// that fits, and help in a pipe, are printed as they are.
func TestHelpPager(t *testing.T) {
	if _, err := exec.LookPath("sed"); err != nil || runtime.GOOS == "windows" {
		t.Skip("needs sed and /bin/sh")
	}
	run := func(tty bool, height int, args ...string) string {
		ios, _, out, errOut := iostreams.Test()
		ios.SetTTY(tty)
		ios.SetHeight(height)
		env := map[string]string{"PAGER": "sed 's/^/paged: /'"}
		code := Run(context.Background(), args, ios, func(k string) string { return env[k] })
		require.Equal(t, 0, code, errOut.String())
		return out.String()
	}
	out := run(true, 10, "validate", "--help")
	assert.True(t, strings.HasPrefix(out, "paged: Check skills"), "long help is paged: %q", out[:40])
	assert.NotContains(t, out, "\nCheck skills")
	out = run(true, 10, "help", "rules")
	assert.True(t, strings.HasPrefix(out, "paged: "), "help topics too")
	out = run(true, 500, "validate", "--help")
	assert.True(t, strings.HasPrefix(out, "Check skills"), "help that fits is printed")
	out = run(false, 10, "validate", "--help")
	assert.True(t, strings.HasPrefix(out, "Check skills"), "no pager in a pipe")
	out = run(true, 10, "list", "--help")
	assert.NotContains(t, out, "paged: paged:", "paged once")
}
