package cmd

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillctl/skillctl/pkg/skill"
)

// This file turns cobra's and pflag's messages about mistakes in commands,
// flags and arguments into one plain sentence each, with the nearest
// command or flag when there is one ("did you mean"), as SPEC §4 asks.

var (
	reExact   = regexp.MustCompile(`^accepts (\d+) arg\(s\), received (\d+)`)
	reAtLeast = regexp.MustCompile(`^requires at least (\d+) arg\(s\), only received (\d+)`)
	reAtMost  = regexp.MustCompile(`^accepts at most (\d+) arg\(s\), received (\d+)`)
	reBetween = regexp.MustCompile(`^accepts between (\d+) and (\d+) arg\(s\), received (\d+)`)
	reNoArgs  = regexp.MustCompile(`^unknown command "(.*)" for "(.*)"$`)
	reUnknown = regexp.MustCompile(`(?s)^unknown command "(.*?)" for "(.*?)"(.*)$`)
	reFlag    = regexp.MustCompile(`^unknown flag: --(\S+)`)
	reShort   = regexp.MustCompile(`^unknown shorthand flag: '(.)' in -(\S+)`)
	reNeedArg = regexp.MustCompile(`^flag needs an argument: (?:'(.)' in -\S+|--(\S+))`)
)

// argSpec is what a command takes as arguments, from its Use line
// ("<name|id|path>", "<source>..."), or "arguments".
func argSpec(c *cobra.Command) string {
	var parts []string
	for _, f := range strings.Fields(c.Use)[1:] {
		if strings.HasPrefix(f, "-") || strings.HasPrefix(f, "[-") || f == "[flags]" {
			break
		}
		parts = append(parts, f)
	}
	if len(parts) == 0 {
		return "arguments"
	}
	return strings.Join(parts, " ")
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

func arguments(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}

// argError rewords an error of a command's Args check.
func argError(c *cobra.Command, args []string, err error) error {
	msg := err.Error()
	path, spec := c.CommandPath(), argSpec(c)
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	switch {
	case reExact.MatchString(msg):
		m := reExact.FindStringSubmatch(msg)
		want, got := atoi(m[1]), atoi(m[2])
		if got < want {
			return fmt.Errorf("%s needs %s", path, spec)
		}
		return fmt.Errorf("%s takes %s (%s), not %d: %s; quote a value that holds spaces",
			path, arguments(want), spec, got, quoteArgs(args))
	case reAtLeast.MatchString(msg):
		if strings.HasSuffix(spec, "...") && !strings.Contains(spec, " ") {
			return fmt.Errorf("%s needs at least one %s", path, strings.TrimSuffix(spec, "..."))
		}
		return fmt.Errorf("%s needs %s", path, spec)
	case reAtMost.MatchString(msg):
		m := reAtMost.FindStringSubmatch(msg)
		return fmt.Errorf("%s takes at most %s (%s), not %s: %s", path, arguments(atoi(m[1])), spec, m[2], quoteArgs(args))
	case reBetween.MatchString(msg):
		m := reBetween.FindStringSubmatch(msg)
		return fmt.Errorf("%s takes %s to %s arguments (%s), not %s", path, m[1], m[2], spec, m[3])
	case reNoArgs.MatchString(msg):
		return fmt.Errorf("%s takes no arguments, got %s", path, quoteArgs(args))
	}
	return err
}

// flagError rewords a flag parsing error of c, suggesting the flags of c
// closest to the one given, or the commands that have it.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	var name, given string
	switch {
	case reFlag.MatchString(msg):
		name = strings.SplitN(reFlag.FindStringSubmatch(msg)[1], "=", 2)[0]
		given = "--" + name
	case reShort.MatchString(msg):
		m := reShort.FindStringSubmatch(msg)
		given = "-" + m[2]
		// -json is read as -j -s -o -n: the long flag meant is json.
		name = strings.SplitN(m[2], "=", 2)[0]
		if len(name) == 1 {
			name = m[1]
		}
	case reNeedArg.MatchString(msg):
		m := reNeedArg.FindStringSubmatch(msg)
		f := c.Flags().Lookup(m[2])
		if m[1] != "" {
			f = c.Flags().ShorthandLookup(m[1])
		}
		if f != nil {
			v, _ := pflag.UnquoteUsage(f)
			if v == "" {
				v = "VALUE"
			}
			return fmt.Errorf("--%s needs a value: --%s %s", f.Name, f.Name, v)
		}
		return err
	default:
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if c.Flags().Lookup(name) != nil && given != "--"+name {
		return fmt.Errorf("unknown flag %s; did you mean --%s? (long flags take two dashes)", given, name)
	}
	if near := skill.Closest(name, names); len(near) > 0 {
		for i := range near {
			near[i] = "--" + near[i]
		}
		return fmt.Errorf("unknown flag %s for %s; did you mean %s?", given, c.CommandPath(), strings.Join(near, " or "))
	}
	var others []string
	for _, sub := range c.Root().Commands() {
		if sub != c && sub.IsAvailableCommand() && sub.Flags().Lookup(name) != nil {
			others = append(others, sub.CommandPath())
		}
	}
	if len(others) > 0 && len(name) > 1 {
		return fmt.Errorf("unknown flag %s for %s; it is a flag of %s", given, c.CommandPath(), strings.Join(others, ", "))
	}
	return fmt.Errorf("unknown flag %s for %s; '%s --help' lists its flags", given, c.CommandPath(), c.CommandPath())
}

// commandError rewords cobra's unknown-command error (with its own
// suggestions) into one sentence; other errors are returned as they are.
func commandError(root *cobra.Command, err error) error {
	m := reUnknown.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	word, parent, rest := m[1], m[2], m[3]
	var near []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Did you mean") {
			near = append(near, l)
		}
	}
	if len(near) == 0 {
		var names []string
		for _, c := range root.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
				names = append(names, c.Aliases...)
			}
		}
		near = skill.Closest(word, names)
	}
	near = slices.Compact(near)
	if len(near) > 0 {
		return &FlagError{Err: fmt.Errorf("unknown command %q; did you mean %s?", word, strings.Join(near, " or "))}
	}
	return &FlagError{Err: fmt.Errorf("unknown command %q; '%s help' lists the commands", word, parent)}
}
