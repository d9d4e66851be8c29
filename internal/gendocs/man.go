package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillctl/skillctl/cmd"
)

// manPage writes the man page of c in roff (man(7)): one page per command,
// titled SKILLCTL-INSTALL(1) and so on, with NAME, SYNOPSIS, DESCRIPTION,
// OPTIONS (and GLOBAL OPTIONS) in man's style, ENVIRONMENT on skillctl(1),
// EXIT STATUS, EXAMPLES and SEE ALSO. The date is left empty so that the
// pages change only when the code does.
func manPage(c *cobra.Command, root *cobra.Command) []byte {
	var b strings.Builder
	name := manName(c)
	fmt.Fprintf(&b, ".TH \"%s\" \"1\" \"\" \"skillctl\" \"skillctl manual\"\n", strings.ToUpper(name))
	b.WriteString(".nh\n.ad l\n")

	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roffText(name), roffText(c.Short))

	b.WriteString(".SH SYNOPSIS\n")
	if c.Runnable() {
		fmt.Fprintf(&b, "\\fB%s\\fR %s\n", roffText(c.CommandPath()), roffText(synopsisArgs(c)))
	}
	if c.HasAvailableSubCommands() {
		if c.Runnable() {
			b.WriteString(".br\n")
		}
		fmt.Fprintf(&b, "\\fB%s\\fR \\fIcommand\\fR [\\fIoptions\\fR]\n", roffText(c.CommandPath()))
	}

	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString(roffBlock(c.Long))

	if c.HasAvailableSubCommands() {
		b.WriteString(".SH COMMANDS\n")
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR(1)\n%s\n", roffText(manName(sub)), roffText(sub.Short))
		}
	}

	if local := c.NonInheritedFlags(); local.HasAvailableFlags() {
		b.WriteString(".SH OPTIONS\n")
		b.WriteString(roffFlags(local))
	}
	if inherited := c.InheritedFlags(); inherited.HasAvailableFlags() {
		b.WriteString(".SH GLOBAL OPTIONS\n")
		b.WriteString(roffFlags(inherited))
	}

	if !c.HasParent() {
		for _, t := range topics(root) {
			if t.Name() == "environment" {
				b.WriteString(".SH ENVIRONMENT\n")
				b.WriteString(roffBlock(t.Long))
			}
		}
	}

	if es := cmd.ExitStatusOf(c); es != "" {
		b.WriteString(".SH EXIT STATUS\n")
		for _, e := range exitEntries(es) {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", e.code, roffText(e.meaning))
		}
		if c.HasParent() {
			b.WriteString(".PP\n\\fBskillctl help exit\\-codes\\fR lists every code.\n")
		}
	}

	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n")
		b.WriteString(".PP\n.RS 4\n.nf\n")
		for _, l := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			b.WriteString(roffLine(strings.TrimPrefix(l, "  ")) + "\n")
		}
		b.WriteString(".fi\n.RE\n")
	}

	b.WriteString(".SH SEE ALSO\n")
	b.WriteString(strings.Join(seeAlso(c, root), ",\n") + "\n")
	return []byte(b.String())
}

// manName is the page name of c: skillctl, skillctl-install, …
func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// synopsisArgs is c's Use line after its name, without the "[flags]"
// cobra adds to usage lines.
func synopsisArgs(c *cobra.Command) string {
	f := strings.Fields(c.Use)
	var out []string
	for _, w := range f[1:] {
		if w != "[flags]" {
			out = append(out, w)
		}
	}
	if len(out) == 0 && c.HasAvailableFlags() {
		return "[options]"
	}
	return strings.Join(out, " ")
}

// seeAlso names the pages related to c: its parent, its sub commands and
// the help topics on skillctl(1); the parent and the sibling pages the
// description mentions elsewhere.
func seeAlso(c *cobra.Command, root *cobra.Command) []string {
	var out []string
	seen := map[string]bool{manName(c): true}
	add := func(page string) {
		if !seen[page] {
			seen[page] = true
			out = append(out, "\\fB"+roffText(page)+"\\fR(1)")
		}
	}
	if c.HasParent() {
		add(manName(c.Parent()))
	}
	var mentioned []string
	for _, sub := range root.Commands() {
		if !sub.IsAvailableCommand() || sub == c {
			continue
		}
		if !c.HasParent() || strings.Contains(c.Long+c.Example, "skillctl "+sub.Name()+" ") ||
			strings.Contains(c.Long+c.Example, "skillctl "+sub.Name()+"'") {
			mentioned = append(mentioned, manName(sub))
		}
	}
	sort.Strings(mentioned)
	for _, m := range mentioned {
		add(m)
	}
	var tops []string
	for _, t := range topics(root) {
		if !c.HasParent() || strings.Contains(c.Long, "help "+t.Name()) {
			tops = append(tops, "\\fBskillctl help "+roffText(t.Name())+"\\fR")
		}
	}
	return append(out, tops...)
}

// roffFlags lists flags man-style: a tagged paragraph per flag, the names
// in bold and the value's name in italics, then the usage text and the
// default.
func roffFlags(fs *pflag.FlagSet) string {
	var b strings.Builder
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		varname, usage := pflag.UnquoteUsage(f)
		tag := ""
		if f.Shorthand != "" {
			tag = "\\fB\\-" + roffText(f.Shorthand) + "\\fR, "
		}
		tag += "\\fB\\-\\-" + roffText(f.Name) + "\\fR"
		if varname != "" {
			tag += " \\fI" + roffText(varname) + "\\fR"
		}
		text := usage
		if d := f.DefValue; d != "" && d != "false" && d != "[]" && d != "0s" && d != "0" {
			text += fmt.Sprintf(" (default: %s)", d)
		}
		fmt.Fprintf(&b, ".TP\n%s\n%s\n", tag, roffText(text))
	})
	return b.String()
}

// roffBlock turns help text into roff: paragraphs of prose, and lines
// indented by two or more spaces as unfilled, indented blocks.
func roffBlock(text string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	inCode, para := false, false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		indented := strings.HasPrefix(l, "  ")
		blank := strings.TrimSpace(l) == ""
		switch {
		case indented:
			if !inCode {
				b.WriteString(".PP\n.RS 4\n.nf\n")
				inCode, para = true, false
			}
			b.WriteString(roffLine(strings.TrimPrefix(l, "  ")) + "\n")
		case blank && inCode:
			// a blank line inside a block stays when the block goes on
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") {
				b.WriteString("\n")
				continue
			}
			b.WriteString(".fi\n.RE\n")
			inCode = false
		case blank:
			para = false
		default:
			if inCode {
				b.WriteString(".fi\n.RE\n")
				inCode = false
			}
			if !para {
				b.WriteString(".PP\n")
				para = true
			}
			b.WriteString(roffText(l) + "\n")
		}
	}
	if inCode {
		b.WriteString(".fi\n.RE\n")
	}
	return b.String()
}

// roffText escapes text for a line of roff: backslashes, hyphens (as
// minus signs, which copy and paste as '-') and a leading '.' or '\”.
func roffText(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	s = nonASCII(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// nonASCII writes every character outside ASCII as a groff Unicode
// escape (\[u2014]), which every output device renders.
func nonASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			var b strings.Builder
			for _, r := range s {
				if r < 0x80 {
					b.WriteRune(r)
				} else {
					fmt.Fprintf(&b, `\[u%04X]`, r)
				}
			}
			return b.String()
		}
	}
	return s
}

// roffLine is roffText for a line of an unfilled block, where an empty
// line must stay empty.
func roffLine(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return roffText(s)
}
