package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillctl/skillctl/pkg/audit"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/validate"
)

// exitStatusKey is the annotation that holds a command's EXIT STATUS text:
// lines of "  CODE  meaning", continuation lines indented further.
const exitStatusKey = "skillctl/exit-status"

// exitStatus builds the annotations of a command whose exit status is text.
func exitStatus(text string) map[string]string {
	return map[string]string{exitStatusKey: text}
}

// ExitStatusOf is a command's documented exit status ("" when none).
func ExitStatusOf(c *cobra.Command) string { return c.Annotations[exitStatusKey] }

// usageTemplate is cobra's usage text in skillctl's order: usage, commands,
// flags, help topics, then the exit status and the examples, so that every
// command's help ends with what it returns and how it is used.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} <command> [flags]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasAvailableSubCommands}}

Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasHelpSubCommands}}

Help topics:{{range .Commands}}{{if .IsAdditionalHelpTopicCommand}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableSubCommands}}

Run '{{.CommandPath}} <command> --help' for more about a command, and
'{{.CommandPath}} help <topic>' for a help topic.{{end}}{{with exitStatus .}}

Exit status:
{{.}}
  See 'skillctl help exit-codes' for every code.{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}
`

func init() {
	cobra.AddTemplateFunc("exitStatus", ExitStatusOf)
}

// setupHelp installs the usage template, the help command and the help topics.
func setupHelp(root *cobra.Command) {
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpCommand(newHelpCmd())
	root.AddCommand(newExitCodesTopic(), newEnvironmentTopic(), newRulesTopic(), newAuditRulesTopic())
}

func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [<command>|<topic>]",
		Short: "Show help for a command or a topic",
		Long: `Show the help of a command (skillctl help validate is skillctl validate
--help), or of a topic: environment (every variable skillctl reads) or
exit-codes (what each exit status means).`,
		Annotations: exitStatus(`  0  the help was shown
  2  no such command or topic`),
		Example: `  skillctl help
  skillctl help install
  skillctl help environment
  skillctl help exit-codes`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			parent, _, err := c.Root().Find(args)
			if err != nil || parent == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range parent.Commands() {
				if (sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand()) && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, sub.Name()+"\t"+sub.Short)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				var names []string
				for _, sub := range c.Root().Commands() {
					if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
						names = append(names, sub.Name())
					}
				}
				if near := skill.Closest(strings.Join(args, " "), names); len(near) > 0 {
					return FlagErrorf("no help for %q; did you mean %s?", strings.Join(args, " "), strings.Join(near, " or "))
				}
				return FlagErrorf("no help for %q: run 'skillctl help' for the commands and topics", strings.Join(args, " "))
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		},
	}
}

// exitCodes is every exit code skillctl uses (SPEC §4), in order: Short for
// the root command's help, Meaning for 'skillctl help exit-codes'.
var exitCodes = []struct {
	Code           int
	Short, Meaning string
}{
	{ExitOK, "success", "success"},
	{ExitFailure, "failure: validation errors, install or run failure",
		"failure: validation errors, a skill that cannot be loaded, an install or run that failed, a configuration file that cannot be read"},
	{ExitUsage, "bad flags or arguments",
		"usage: an unknown command or flag, a wrong number of arguments, a bad flag value (the usage line is printed)"},
	{ExitNotFound, "no such skill, path or file", "not found: no such skill, path or file (close names are suggested)"},
	{ExitDenied, "denied: a permission rule, a needed confirmation, direct mode disabled",
		"denied: a permission rule, a confirmation needed without a terminal, direct mode disabled, a path that leaves the skill folder"},
	{ExitTimeout, "run: timed out", "run: the skill's script timed out"},
	{ExitSandbox, "run: no sandbox at the isolation asked for",
		"run: the sandbox could not be set up at the isolation asked for; nothing ran"},
	{ExitInterrupted, "interrupted", "interrupted (Ctrl-C, SIGINT or SIGTERM)"},
}

// rootExitStatus is the root command's exit status: every code, briefly.
func rootExitStatus() map[string]string {
	var lines []string
	for _, e := range exitCodes {
		lines = append(lines, fmt.Sprintf("  %-4d %s", e.Code, e.Short))
	}
	return exitStatus(strings.Join(lines, "\n"))
}

func newExitCodesTopic() *cobra.Command {
	var b strings.Builder
	b.WriteString("skillctl's exit status says what happened, for scripts and CI:\n\n")
	for _, e := range exitCodes {
		lines := wrapWords(e.Meaning, 62)
		fmt.Fprintf(&b, "    %-4d %s\n", e.Code, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "         %s\n", l)
		}
	}
	b.WriteString(`
'skillctl run' exits with the script's own exit status when the script ran
and failed, so a script may also return any of these codes itself: read
'skillctl run --json' for the difference.

Errors are printed once, on stderr, starting with "Error:". Each command's
help lists the codes it returns.`)
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What each exit status means",
		Long:  b.String(),
	}
}

// environment lists every variable skillctl reads, by what it affects.
// TestEnvironmentTopicNamesEveryVariable keeps it complete.
const environment = `skillctl reads these environment variables.

Where skills are found ('skillctl list --help' gives the order):

    HOME                 the home folder holding the user skill folders
                         (~/.claude/skills, ~/.agents/skills, ~/.codex/skills,
                         ~/.config/opencode/skills); USERPROFILE on Windows
                         when HOME is not set
    CLAUDE_CONFIG_DIR    Claude Code's folder instead of ~/.claude: user
                         skills in $CLAUDE_CONFIG_DIR/skills, plugins in
                         $CLAUDE_CONFIG_DIR/plugins; also where 'install
                         --scope user --agent claude' installs
    SKILLCTL_PATH        more skill folders (the env source), separated by
                         ':' (';' on Windows); each is a skill folder or a
                         folder of skills
    CLAUDE_SKILLS_DIR    one more folder of the env source, after
                         SKILLCTL_PATH

Configuration and state:

    XDG_CONFIG_HOME      the user configuration is
                         $XDG_CONFIG_HOME/skillctl/config.yaml
                         (default ~/.config/skillctl/config.yaml)
    XDG_STATE_HOME       'skillctl run' records runs in
                         $XDG_STATE_HOME/skillctl/runs.jsonl
                         (default ~/.local/state/skillctl/runs.jsonl)

Output:

    NO_COLOR             any value: no color, even with --color auto on a
                         terminal (--color always still colors)
    CLICOLOR_FORCE       any value but 0: color even when stdout is not a
                         terminal
    COLUMNS              the width for tables when stdout is not a terminal
    PAGER                the pager for help longer than the terminal
                         (default: less, with LESS=FRX unless LESS is set;
                         PAGER=cat prints help as it is)
    LESS                 the options less gets when it pages help

Running skills ('skillctl run --help'):

    TMPDIR               where 'skillctl run' makes fresh workdirs and each
                         run's private temporary folder
    PATH                 on Windows, where nothing is sandboxed, the script
                         gets skillctl's own PATH; elsewhere a sandboxed
                         script gets the system folders only
    SystemRoot, ComSpec, PATHEXT, WINDIR
                         on Windows, passed to the script, since Windows
                         programs do not start without them
    --env NAME           a variable named with --env (and declared by the
                         skill as env:NAME) is passed to the script; no other
                         variable of yours reaches a sandboxed script

Downloads ('skillctl install https://...'):

    HTTPS_PROXY          the proxy for https:// sources
    HTTP_PROXY           the proxy for http:// sources
    NO_PROXY             hosts reached without the proxy

Git sources ('skillctl install owner/repo', see 'skillctl install --help'):

    GIT_SSH_COMMAND, GIT_SSH
                         when neither is set, git's ssh runs with BatchMode=yes
                         (no password prompt); git itself reads its own
                         variables and configuration (credentials, proxies,
                         url.<base>.insteadOf, GIT_CONFIG_GLOBAL)

Shell completion:

    SKILLCTL_COMPLETION_DESCRIPTIONS
                         false: completions come without descriptions

Performance:

    GOGC                 when set, skillctl keeps it instead of collecting
                         garbage less often while it loads many skills
    GOMEMLIMIT           when set, skillctl keeps it instead of its own soft
                         memory limit (144MiB) while it loads many skills

A skill's script gets its own environment: PATH, HOME, TMPDIR, SKILL_NAME,
SKILL_DIR, SKILL_PATH, SKILL_WORKDIR, SKILL_INPUT_FILE, SKILL_SANDBOX,
SKILL_NETWORK, and the variables granted with --env.`

func newEnvironmentTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "Every environment variable skillctl reads",
		Long:  environment,
	}
}

// newRulesTopic lists every validation rule with its severity under each
// profile, what it checks and how to fix what it finds.
func newRulesTopic() *cobra.Command {
	var b strings.Builder
	b.WriteString(`Every rule 'skillctl validate' checks, with its severity under each profile
(default, spec, claude-code, anthropic-api; "-" where the profile does not
check it), what it finds and how to fix it.

Set a rule's severity with --rule RULE=LEVEL or in the configuration
(LEVEL: off, info, warning or error):

    validate:
      rules:
        body-too-long: off

`)
	width := 0
	for _, r := range validate.Rules {
		width = max(width, len(r.ID))
	}
	lvl := func(s string) string {
		if s == validate.Off {
			return "-"
		}
		return s
	}
	fmt.Fprintf(&b, "    %-*s  %-7s  %-7s  %-11s  %s\n", width, "RULE", "DEFAULT", "SPEC", "CLAUDE-CODE", "ANTHROPIC-API")
	for _, r := range validate.Rules {
		sv := r.Severity
		fmt.Fprintf(&b, "    %-*s  %-7s  %-7s  %-11s  %s\n", width, r.ID, lvl(sv.Default), lvl(sv.Spec), lvl(sv.ClaudeCode), lvl(sv.AnthropicAPI))
		for _, l := range wrapWords(r.Summary, 68) {
			fmt.Fprintf(&b, "        %s\n", l)
		}
		for i, l := range wrapWords("Fix: "+r.Hint, 68) {
			if i > 0 {
				l = "     " + l
			}
			fmt.Fprintf(&b, "        %s\n", l)
		}
	}
	return &cobra.Command{
		Use:   "rules",
		Short: "Every validation rule, its severity per profile and its fix",
		Long:  strings.TrimRight(b.String(), "\n"),
	}
}

// newAuditRulesTopic is 'skillctl help audit-rules': every audit rule with
// its severity, category, why and fix, from the rule table itself.
func newAuditRulesTopic() *cobra.Command {
	var b strings.Builder
	b.WriteString(`Every rule of 'skillctl audit', grouped by category: its id and severity,
what it finds, why it matters and how to fix it. A command shown in Markdown
documentation other than SKILL.md counts as medium where the rule says "medium
in docs"; a quoted phrase counts as medium where it says "medium quoted".
`)
	cat := ""
	for _, r := range audit.Rules {
		if r.Category != cat {
			cat = r.Category
			fmt.Fprintf(&b, "\n%s\n", cat)
		}
		sev := r.Severity
		if r.InDocs != "" {
			sev += ", " + r.InDocs + " in docs"
		}
		if r.Quoted != "" {
			sev += ", " + r.Quoted + " quoted"
		}
		fmt.Fprintf(&b, "  %s (%s)\n", r.ID, sev)
		for _, l := range wrapWords(r.Message+". "+r.Why, 70) {
			fmt.Fprintf(&b, "      %s\n", l)
		}
		for i, l := range wrapWords("Fix: "+r.Fix, 70) {
			if i > 0 {
				l = "     " + l
			}
			fmt.Fprintf(&b, "      %s\n", l)
		}
	}
	return &cobra.Command{
		Use:   "audit-rules",
		Short: "Every audit rule, its severity, why it matters and its fix",
		Long:  strings.TrimRight(b.String(), "\n"),
	}
}

// wrapWords breaks s into lines of at most width columns, at spaces.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			lines = append(lines, line)
			line = w
		default:
			line += " " + w
		}
	}
	return append(lines, line)
}
