package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sourceRoot is the top of the source tree (this package is internal/gendocs).
const sourceRoot = "../.."

// TestGeneratedFilesAreCurrent fails when the committed reference pages, man
// pages or completion scripts differ from what the command tree generates.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	for set, dirs := range sets {
		t.Run(set, func(t *testing.T) {
			files, err := Generate(set)
			require.NoError(t, err)
			require.NotEmpty(t, files)
			if diff := Diff(sourceRoot, dirs, files); len(diff) > 0 {
				t.Errorf("generated files are out of date; run 'make %s' and commit the result:\n  %s",
					set, strings.Join(diff, "\n  "))
			}
		})
	}
}

// TestGenerateIsDeterministic: two generations give the same bytes, so the
// files only change when the code does.
func TestGenerateIsDeterministic(t *testing.T) {
	for set := range sets {
		a, err := Generate(set)
		require.NoError(t, err)
		b, err := Generate(set)
		require.NoError(t, err)
		require.Equal(t, len(a), len(b))
		for p := range a {
			assert.True(t, bytes.Equal(a[p], b[p]), "%s differs between two runs", p)
		}
	}
}

func TestDocsCoverEveryCommandAndTopic(t *testing.T) {
	files, err := Generate("docs")
	require.NoError(t, err)
	for _, name := range []string{"completion", "index", "init", "install", "list", "pack", "run", "show", "uninstall", "validate", "version"} {
		md := files["docs/reference/skillctl_"+name+".md"]
		require.NotNil(t, md, "reference page of %s", name)
		assert.Contains(t, string(md), "### Exit status", name)
		assert.Contains(t, string(md), "### Examples", name)
		man := files["docs/man/skillctl-"+name+".1"]
		require.NotNil(t, man, "man page of %s", name)
		assert.Contains(t, string(man), ".SH EXIT STATUS", name)
	}
	for _, topic := range []string{"environment", "exit-codes"} {
		assert.NotNil(t, files["docs/reference/skillctl_help_"+topic+".md"], topic)
		assert.Contains(t, string(files["docs/reference/skillctl.md"]), "skillctl_help_"+topic+".md")
	}
	root := string(files["docs/man/skillctl.1"])
	assert.Contains(t, root, ".SH ENVIRONMENT")
	assert.Contains(t, root, "SKILLCTL_PATH")
	assert.NotContains(t, root, "Jan 0001", "the man page date is left empty")
}

func TestToMarkdown(t *testing.T) {
	in := "Put <x> in 'skillctl index --write FILE' and *that*.\n\nFormats:\n  a   one\n  b   two\n\nAfter."
	want := "Put \\<x\\> in `skillctl index --write FILE` and \\*that\\*.\n\nFormats:\n\n```\na   one\nb   two\n```\n\nAfter."
	assert.Equal(t, want, toMarkdown(in))
}

func TestExitEntries(t *testing.T) {
	got := exitEntries("  0    ok\n  4    denied: a rule,\n       or more\n  N    the script's own")
	assert.Equal(t, []exitEntry{{"0", "ok"}, {"4", "denied: a rule, or more"}, {"N", "the script's own"}}, got)
}

func TestBashCompletionParses(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	files, err := Generate("completions")
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "skillctl.bash")
	require.NoError(t, os.WriteFile(p, files["completions/skillctl.bash"], 0o644))
	out, err := exec.Command(bash, "-n", p).CombinedOutput()
	require.NoError(t, err, "bash -n: %s", out)
}

// overstrike matches grotty's bold and underline: a character and a backspace.
var overstrike = regexp.MustCompile(".\b")

// TestManPagesRender formats every man page with groff, warnings on, and
// fails on any warning.
func TestManPagesRender(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed")
	}
	files, err := Generate("docs")
	require.NoError(t, err)
	dir := t.TempDir()
	n := 0
	for p, b := range files {
		if !strings.HasSuffix(p, ".1") {
			continue
		}
		n++
		f := filepath.Join(dir, filepath.Base(p))
		require.NoError(t, os.WriteFile(f, b, 0o644))
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", f)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "groff %s: %s", p, stderr.String())
		assert.Empty(t, stderr.String(), "groff warnings for %s", p)
		text := overstrike.ReplaceAllString(stdout.String(), "")
		assert.True(t, strings.Contains(text, "EXIT STATUS"), "%s has no EXIT STATUS section", p)
	}
	assert.Greater(t, n, 10)
}

// TestManPages: one page per command, titled after it, with the synopsis
// of its Use line, options in man's style and the sections man readers
// expect. skillctl-version(1) is checked whole.
func TestManPages(t *testing.T) {
	files, err := Generate("docs")
	require.NoError(t, err)
	want := `.TH "SKILLCTL-VERSION" "1" "" "skillctl" "skillctl manual"
.nh
.ad l
.SH NAME
skillctl\-version \- Print skillctl's version
.SH SYNOPSIS
\fBskillctl version\fR [options]
.SH DESCRIPTION
.PP
Print skillctl's version (also: skillctl \-\-version).
.SH OPTIONS
.TP
\fB\-h\fR, \fB\-\-help\fR
help for version
.SH GLOBAL OPTIONS
.TP
\fB\-\-agent\fR \fIAGENT\fR
use the folders of AGENT: {claude|agents|codex|opencode} (repeatable)
.TP
\fB\-C\fR, \fB\-\-chdir\fR \fIDIR\fR
act as if started in DIR
`
	assert.True(t, strings.HasPrefix(string(files["docs/man/skillctl-version.1"]), want),
		"skillctl-version.1 starts:\n%s", files["docs/man/skillctl-version.1"])
	n := 0
	for p, b := range files {
		if !strings.HasSuffix(p, ".1") {
			continue
		}
		n++
		page := string(b)
		name := strings.TrimSuffix(filepath.Base(p), ".1")
		assert.True(t, strings.HasPrefix(page, `.TH "`+strings.ToUpper(name)+`" "1" ""`), "%s is titled after its command", p)
		for _, sec := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "SEE ALSO"} {
			assert.Contains(t, page, "\n.SH "+sec+"\n", "%s has %s", p, sec)
		}
		assert.NotContains(t, page, "[flags]", "%s: the synopsis has no cobra [flags]", p)
		assert.NotContains(t, page, "docs/", "%s points to files an installed binary lacks", p)
		assert.NotRegexp(t, `(?m)^-`, page, "%s: a line starting with - would be read as text, but options are .TP", p)
	}
	assert.Equal(t, len(commands(newRoot())), n, "one page per command")
	install := string(files["docs/man/skillctl-install.1"])
	assert.Contains(t, install, ".SH SYNOPSIS\n\\fBskillctl install\\fR [<source>...] [\\-\\-scope {user|project}]")
	assert.Contains(t, install, ".SH OPTIONS\n.TP\n\\fB\\-\\-allow\\-risk\\fR \\fIRULE\\fR\ninstall despite audit findings of RULE")
	validate := string(files["docs/man/skillctl-validate.1"])
	assert.Contains(t, validate, ".TP\n\\fB\\-\\-profile\\fR \\fIPROFILE\\fR\nthe rule set PROFILE: {default|spec|claude\\-code|anthropic\\-api} (default: default)\n")
	assert.Contains(t, validate, "\\fBskillctl help rules\\fR", "SEE ALSO names the topic the page mentions")
	root := string(files["docs/man/skillctl.1"])
	assert.Contains(t, root, ".SH COMMANDS\n.TP\n\\fBskillctl\\-audit\\fR(1)\n")
}
