// Command gendocs writes the files generated from skillctl's command tree:
// the reference pages (docs/reference/*.md), the man pages (docs/man/*.1)
// and the shell completion scripts (completions/). `make docs` and
// `make completions` run it; its test fails when the committed files differ
// from what the code generates.
//
//	go run ./internal/gendocs [-root DIR] [-check] {docs|completions}...
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/skillctl/skillctl/cmd"
	"github.com/skillctl/skillctl/internal/iostreams"
)

// Folders the generator owns: every file in them is generated, and a file
// the code no longer generates is removed.
const (
	referenceDir   = "docs/reference"
	manDir         = "docs/man"
	completionsDir = "completions"
)

// Sets of generated files.
var sets = map[string][]string{
	"docs":        {referenceDir, manDir},
	"completions": {completionsDir},
}

func main() {
	root := flag.String("root", ".", "the source tree to write into")
	check := flag.Bool("check", false, "report files that differ instead of writing them")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gendocs [-root DIR] [-check] {docs|completions}...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	status := 0
	for _, set := range flag.Args() {
		dirs, ok := sets[set]
		if !ok {
			fmt.Fprintf(os.Stderr, "gendocs: unknown set %q (docs, completions)\n", set)
			os.Exit(2)
		}
		files, err := Generate(set)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gendocs: %v\n", err)
			os.Exit(1)
		}
		if *check {
			for _, d := range Diff(*root, dirs, files) {
				fmt.Fprintln(os.Stderr, d)
				status = 1
			}
			continue
		}
		if err := Write(*root, dirs, files); err != nil {
			fmt.Fprintf(os.Stderr, "gendocs: %v\n", err)
			os.Exit(1)
		}
	}
	os.Exit(status)
}

// Generate builds the files of one set, keyed by slash-separated path
// relative to the source tree.
func Generate(set string) (map[string][]byte, error) {
	switch set {
	case "docs":
		return generateDocs()
	case "completions":
		return generateCompletions()
	}
	return nil, fmt.Errorf("unknown set %q", set)
}

// newRoot builds the command tree as a user with an empty environment sees it.
func newRoot() *cobra.Command {
	ios, _, _, _ := iostreams.Test()
	root := cmd.NewRootCmd(cmd.NewFactory(ios, func(string) string { return "" }))
	root.DisableAutoGenTag = true
	root.InitDefaultHelpCmd()
	return root
}

// commands is root and every command a user can run below it, depth first.
func commands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			out = append(out, commands(sub)...)
		}
	}
	return out
}

// topics are the help topics of root (skillctl help <topic>).
func topics(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range root.Commands() {
		if sub.IsAdditionalHelpTopicCommand() {
			out = append(out, sub)
		}
	}
	return out
}

func generateDocs() (map[string][]byte, error) {
	root := newRoot()
	files := map[string][]byte{}
	for _, c := range commands(root) {
		plain := c.Long
		c.Long = toMarkdown(plain)

		var md bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &md, func(s string) string { return s }); err != nil {
			return nil, err
		}
		base := strings.ReplaceAll(c.CommandPath(), " ", "_")
		files[referenceDir+"/"+base+".md"] = finishMarkdown(c, md.Bytes(), topics(root))

		c.Long = plain
		page := manPage(c, root)
		files[manDir+"/"+strings.ReplaceAll(c.CommandPath(), " ", "-")+".1"] = page
	}
	for _, t := range topics(root) {
		var b bytes.Buffer
		fmt.Fprintf(&b, "## skillctl help %s\n\n%s\n\n%s\n\n### SEE ALSO\n\n* [skillctl](skillctl.md)\t - %s\n",
			t.Name(), t.Short, toMarkdown(t.Long), root.Short)
		files[referenceDir+"/skillctl_help_"+t.Name()+".md"] = b.Bytes()
	}
	return files, nil
}

// finishMarkdown adds what cobra's page lacks: the exit status, and on the
// root page the help topics, both before SEE ALSO.
func finishMarkdown(c *cobra.Command, page []byte, topics []*cobra.Command) []byte {
	var extra bytes.Buffer
	if es := cmd.ExitStatusOf(c); es != "" {
		extra.WriteString("### Exit status\n\n| Code | Meaning |\n|---|---|\n")
		for _, e := range exitEntries(es) {
			fmt.Fprintf(&extra, "| %s | %s |\n", e.code, escapeMarkdown(e.meaning))
		}
		extra.WriteString("\nSee [skillctl help exit-codes](skillctl_help_exit-codes.md) for every code.\n\n")
	}
	if !c.HasParent() {
		extra.WriteString("### Help topics\n\n")
		for _, t := range topics {
			fmt.Fprintf(&extra, "* [skillctl help %s](skillctl_help_%s.md)\t - %s\n", t.Name(), t.Name(), t.Short)
		}
		extra.WriteString("\n")
	}
	at := bytes.Index(page, []byte("### SEE ALSO"))
	if at < 0 {
		at = len(page)
	}
	out := append([]byte{}, page[:at]...)
	out = append(out, extra.Bytes()...)
	return append(out, page[at:]...)
}

type exitEntry struct{ code, meaning string }

var exitLine = regexp.MustCompile(`^\s+(\d+|N)\s+(.*)$`)

// exitEntries parses a command's exit status text: "  CODE  meaning" lines,
// continuation lines indented further.
func exitEntries(text string) []exitEntry {
	var out []exitEntry
	for _, line := range strings.Split(text, "\n") {
		if m := exitLine.FindStringSubmatch(line); m != nil {
			out = append(out, exitEntry{m[1], m[2]})
		} else if len(out) > 0 {
			out[len(out)-1].meaning += " " + strings.TrimSpace(line)
		}
	}
	return out
}

// toMarkdown turns help text into Markdown: lines indented by two or more
// spaces become code blocks, the rest paragraphs with Markdown's special
// characters escaped and 'skillctl ...' commands set as code.
func toMarkdown(text string) string {
	var out []string
	var code []string
	flush := func() {
		if len(code) == 0 {
			return
		}
		indent := -1
		for _, l := range code {
			if strings.TrimSpace(l) == "" {
				continue
			}
			n := len(l) - len(strings.TrimLeft(l, " "))
			if indent < 0 || n < indent {
				indent = n
			}
		}
		for len(code) > 0 && strings.TrimSpace(code[len(code)-1]) == "" {
			code = code[:len(code)-1]
		}
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
		out = append(out, "```")
		for _, l := range code {
			if len(l) >= indent {
				l = l[indent:]
			}
			out = append(out, l)
		}
		out = append(out, "```", "")
		code = nil
	}
	for _, line := range strings.Split(text, "\n") {
		indented := strings.HasPrefix(line, "  ")
		if indented || (len(code) > 0 && strings.TrimSpace(line) == "") {
			code = append(code, line)
			continue
		}
		flush()
		out = append(out, proseLine(line))
	}
	flush()
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

var commandRef = regexp.MustCompile(`'(skillctl [^']*)'`)

// proseLine escapes a line of prose for Markdown, setting quoted skillctl
// commands as code.
func proseLine(line string) string {
	var b strings.Builder
	last := 0
	for _, m := range commandRef.FindAllStringSubmatchIndex(line, -1) {
		b.WriteString(escapeMarkdown(line[last:m[0]]))
		b.WriteString("`" + line[m[2]:m[3]] + "`")
		last = m[1]
	}
	b.WriteString(escapeMarkdown(line[last:]))
	return b.String()
}

var markdownSpecial = strings.NewReplacer(`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`,
	`<`, `\<`, `>`, `\>`, `[`, `\[`, `]`, `\]`, `|`, `\|`)

func escapeMarkdown(s string) string { return markdownSpecial.Replace(s) }

// completionFiles names the script written for each shell.
var completionFiles = map[string]string{
	"bash":       "skillctl.bash",
	"zsh":        "_skillctl",
	"fish":       "skillctl.fish",
	"powershell": "skillctl.ps1",
}

func generateCompletions() (map[string][]byte, error) {
	files := map[string][]byte{}
	for shell, name := range completionFiles {
		ios, _, out, errOut := iostreams.Test()
		if code := cmd.Run(context.Background(), []string{"completion", shell}, ios, func(string) string { return "" }); code != 0 {
			return nil, fmt.Errorf("skillctl completion %s: exit %d: %s", shell, code, errOut)
		}
		files[completionsDir+"/"+name] = out.Bytes()
	}
	return files, nil
}

// Write writes files under root and removes files in dirs that are not
// generated any more.
func Write(root string, dirs []string, files map[string][]byte) error {
	for _, stale := range staleFiles(root, dirs, files) {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(stale))); err != nil {
			return err
		}
	}
	for _, p := range sortedKeys(files) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, files[p]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Diff says which files under root differ from files, are missing, or are
// in dirs without being generated.
func Diff(root string, dirs []string, files map[string][]byte) []string {
	var out []string
	for _, p := range sortedKeys(files) {
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case err != nil:
			out = append(out, p+": missing")
		case !bytes.Equal(old, files[p]):
			out = append(out, p+": differs from what the code generates")
		}
	}
	for _, stale := range staleFiles(root, dirs, files) {
		out = append(out, stale+": no longer generated")
	}
	return out
}

func staleFiles(root string, dirs []string, files map[string][]byte) []string {
	var out []string
	for _, d := range dirs {
		_ = filepath.WalkDir(filepath.Join(root, filepath.FromSlash(d)), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return nil
			}
			rel = filepath.ToSlash(rel)
			if _, ok := files[rel]; !ok {
				out = append(out, rel)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
