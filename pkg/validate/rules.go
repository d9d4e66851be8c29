package validate

import (
	"fmt"
	"strings"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Severities, and Off for a rule a profile does not apply.
const (
	Error   = skill.SeverityError
	Warning = skill.SeverityWarning
	Info    = skill.SeverityInfo
	Off     = ""
)

// Levels is a rule's severity under each profile (Off: not checked).
type Levels struct {
	Default, Spec, ClaudeCode, AnthropicAPI string
}

// For returns the severity under profile (the default profile when unknown).
func (l Levels) For(profile string) string {
	switch profile {
	case ProfileSpec:
		return l.Spec
	case ProfileClaudeCode:
		return l.ClaudeCode
	case ProfileAnthropicAPI:
		return l.AnthropicAPI
	}
	return l.Default
}

func all(sev string) Levels { return Levels{sev, sev, sev, sev} }

// Rule is one validation rule: a stable id, what it checks, how to fix what
// it finds, its severity per profile, and the check that finds it. Rules
// without a check are reported while reading SKILL.md or the input.
type Rule struct {
	ID string
	// Summary says what the rule checks, in one sentence.
	Summary string
	// Hint says how to fix a finding; a finding may carry a more specific one.
	Hint     string
	Severity Levels
	check    *check
}

// Rules lists every rule, in the order checks run.
var Rules = []*Rule{
	// Reading the input and SKILL.md.
	{ID: "skill-md-missing", Severity: all(Error),
		Summary: "The folder has no SKILL.md.",
		Hint:    "create SKILL.md with name and description frontmatter"},
	{ID: "not-a-skill", Severity: all(Error),
		Summary: "The path is a file that is neither a SKILL.md nor a skill archive.",
		Hint:    "give a skill folder, its SKILL.md, a folder tree or a .zip/.skill/.tar.gz archive"},
	{ID: "archive-unsafe", Severity: all(Error),
		Summary: "The archive cannot be read safely (entries leaving the folder, links, devices, too many or too large entries) or is not an archive skillctl reads.",
		Hint:    "rebuild the archive with 'skillctl pack'"},
	{ID: "unreadable", Severity: all(Error),
		Summary: "A file could not be read.",
		Hint:    "check the file's permissions"},
	{ID: "skill-md-lowercase", Severity: all(Warning),
		Summary: "The file is named skill.md; agents look for SKILL.md.",
		Hint:    "rename it to SKILL.md"},
	{ID: "file-too-large", Severity: all(Error),
		Summary: "SKILL.md is larger than 2 MiB.",
		Hint:    "move long material into references/ files that the body links to"},
	{ID: "binary-file", Severity: all(Error),
		Summary: "SKILL.md contains NUL bytes.",
		Hint:    "SKILL.md must be UTF-8 Markdown"},
	{ID: "not-utf8", Severity: all(Error),
		Summary: "SKILL.md is not valid UTF-8.",
		Hint:    "save the file as UTF-8"},
	{ID: "bom", Severity: Levels{Warning, Error, Warning, Warning},
		Summary: "SKILL.md starts with a UTF-8 byte order mark; strict readers then find no frontmatter.",
		Hint:    "save the file as UTF-8 without a BOM"},
	{ID: "frontmatter-missing", Severity: all(Error),
		Summary: "SKILL.md does not start with a '---' line.",
		Hint:    "begin the file with '---', then name: and description:, then '---'"},
	{ID: "frontmatter-unclosed", Severity: all(Error),
		Summary: "The frontmatter is never closed by a '---' line.",
		Hint:    "add a line '---' after the last frontmatter field"},
	{ID: "frontmatter-not-mapping", Severity: all(Error),
		Summary: "The frontmatter is not a YAML mapping of fields.",
		Hint:    "write fields as 'name: my-skill' and 'description: ...'"},
	{ID: "frontmatter-inner-dashes", Severity: all(Warning),
		Summary: "A frontmatter line contains '---'; the reference validator ends the frontmatter at the first '---' anywhere.",
		Hint:    "avoid '---' inside frontmatter values (write an em dash or '--')"},
	{ID: "yaml-too-complex", Severity: all(Error),
		Summary: "The frontmatter uses more YAML aliases than skillctl reads (100).",
		Hint:    "write the values out instead of repeating them with *aliases"},
	{ID: "yaml-invalid", Severity: all(Error),
		Summary: "The frontmatter is not valid YAML.",
		Hint:    "check indentation and quote values that contain ':' or '#'"},
	{ID: "yaml-unquoted-colon", Severity: Levels{Warning, Error, Warning, Warning},
		Summary: "A plain value contains ': '; strict YAML parsers reject it (skillctl loads it by quoting the value).",
		Hint:    "wrap the value in double quotes, or use a block scalar (>)"},
	{ID: "yaml-duplicate-key", Severity: all(Error),
		Summary: "A key appears twice in the same mapping.",
		Hint:    "keep one of the two"},
	{ID: "yaml-flow-style", Severity: Levels{Info, Error, Info, Info}, check: yamlFeaturesCheck,
		Summary: "A flow collection ([a, b] or {a: b}); the reference validator's strict YAML refuses them.",
		Hint:    "write lists as '- item' lines and mappings as indented 'key: value' lines; quote a value that starts with [ or {"},
	{ID: "yaml-anchor", Severity: Levels{Warning, Error, Warning, Warning}, check: yamlFeaturesCheck,
		Summary: "An anchor (&a) or alias (*a); the reference validator's strict YAML refuses them.",
		Hint:    "write the value out in full"},
	{ID: "yaml-tag", Severity: Levels{Warning, Error, Warning, Warning}, check: yamlFeaturesCheck,
		Summary: "An explicit tag (!!str, !x); the reference validator's strict YAML refuses them.",
		Hint:    "remove the tag; every value is read as text (quote it if needed)"},

	// Fields.
	{ID: "unknown-field", Severity: Levels{Warning, Error, Error, Error}, check: unknownFieldsCheck,
		Summary: "A top-level key the profile does not know.",
		Hint:    "move custom keys under metadata: as strings, or remove them"},
	{ID: "name-missing", Severity: all(Error), check: nameCheck,
		Summary: "The required field name is missing, empty or not text.",
		Hint:    "add name: followed by the folder's name"},
	{ID: "name-format", Severity: all(Error), check: nameCheck,
		Summary: "The name is not lowercase letters, digits and single hyphens, or starts or ends with a hyphen.",
		Hint:    "use lowercase letters, digits and single hyphens, e.g. pdf-tools"},
	{ID: "name-too-long", Severity: all(Error), check: nameCheck,
		Summary: "The name is longer than 64 characters (after NFKC normalization).",
		Hint:    "shorten the name to 64 characters or fewer, and rename the folder to match"},
	{ID: "name-dir-mismatch", Severity: all(Error), check: nameCheck,
		Summary: "The name differs from the skill's folder name (compared after NFKC normalization).",
		Hint:    "rename the folder or change name: so that they match"},
	{ID: "name-not-ascii", Severity: Levels{Warning, Off, Warning, Error}, check: nameCheck,
		Summary: "The name has characters outside ASCII; some agents and the Anthropic API only accept a-z, 0-9 and '-'.",
		Hint:    "use only a-z, 0-9 and '-' if the skill is uploaded to the Anthropic API"},
	{ID: "name-reserved", Severity: Levels{Off, Off, Off, Error}, check: nameCheck,
		Summary: "The name contains a reserved word (anthropic, claude).",
		Hint:    "choose a name without 'anthropic' or 'claude'"},
	{ID: "description-missing", Severity: all(Error), check: descriptionCheck,
		Summary: "The required field description is missing, empty or not text.",
		Hint:    "add description: what the skill does and when to use it"},
	{ID: "description-too-long", Severity: all(Error), check: descriptionCheck,
		Summary: "The description is longer than 1024 characters.",
		Hint:    "shorten the description to 1024 characters; move details into the body"},
	{ID: "description-xml-tags", Severity: Levels{Info, Off, Info, Error}, check: descriptionCheck,
		Summary: "The description contains '<' or '>'; the Anthropic API refuses XML tags in it.",
		Hint:    "write the description without angle brackets"},
	{ID: "description-placeholder", Severity: Levels{Warning, Off, Warning, Warning}, check: descriptionCheck,
		Summary: "The description is a placeholder (it starts with TODO, TBD or FIXME, as 'skillctl init' writes one); agents choose skills by their descriptions.",
		Hint:    "say what the skill does and when an agent should use it"},
	{ID: "compatibility-not-string", Severity: all(Error), check: compatibilityCheck,
		Summary: "compatibility is a list or mapping instead of text.",
		Hint:    "write compatibility as one line of text"},
	{ID: "compatibility-too-long", Severity: all(Error), check: compatibilityCheck,
		Summary: "compatibility is longer than 500 characters.",
		Hint:    "shorten compatibility to 500 characters"},
	{ID: "compatibility-empty", Severity: Levels{Info, Off, Info, Error}, check: compatibilityCheck,
		Summary: "compatibility is given but empty.",
		Hint:    "remove the empty compatibility field or say what the skill needs"},
	{ID: "metadata-not-map", Severity: Levels{Error, Off, Error, Error}, check: metadataCheck,
		Summary: "metadata is not a mapping of keys to strings.",
		Hint:    "write metadata as indented 'key: value' lines"},
	{ID: "metadata-value-not-string", Severity: all(Warning), check: metadataCheck,
		Summary: "A metadata value is a list or mapping; metadata maps strings to strings.",
		Hint:    "write the value as text (for a list, a comma-separated string)"},
	{ID: "allowed-tools-list", Severity: Levels{Warning, Warning, Info, Warning}, check: allowedToolsCheck,
		Summary: "allowed-tools is a YAML list; the specification defines it as one space-separated string.",
		Hint:    "write allowed-tools: Read Bash(git:*) on one line"},
	{ID: "allowed-tools-invalid", Severity: all(Error), check: allowedToolsCheck,
		Summary: "allowed-tools is a mapping, or a list holding lists or mappings.",
		Hint:    "write allowed-tools as one space-separated string"},
	{ID: "field-type", Severity: Levels{Warning, Off, Warning, Warning}, check: fieldTypesCheck,
		Summary: "A known field has the wrong type (text, true/false, or a list expected).",
		Hint:    "write the field in the documented shape"},

	// skillctl's execution fields.
	{ID: "mode-invalid", Severity: Levels{Error, Off, Warning, Warning}, check: modeCheck,
		Summary: "mode is neither sandbox nor direct.",
		Hint:    "write mode: sandbox (run the entrypoint) or mode: direct (print the body)"},
	{ID: "timeout-invalid", Severity: Levels{Error, Off, Warning, Warning}, check: timeoutCheck,
		Summary: "timeout is not a whole number of milliseconds from 1 to 86400000 (24 h).",
		Hint:    "write timeout: 30000 for 30 seconds"},
	{ID: "permissions-invalid", Severity: Levels{Error, Off, Warning, Warning}, check: permissionsCheck,
		Summary: "A permission is neither network nor env:NAME.",
		Hint:    "list permissions as network or env:NAME"},
	{ID: "entrypoint-missing", Severity: Levels{Error, Off, Warning, Warning}, check: entrypointCheck,
		Summary: "The entrypoint is not a file inside the skill, or a sandbox skill has no script to run.",
		Hint:    "create the script, or point entrypoint at a file under scripts/"},
	{ID: "script-not-executable", Severity: Levels{Warning, Off, Info, Info}, check: scriptsCheck,
		Summary: "A script starts with '#!' but is not executable.",
		Hint:    "chmod +x the script (git: git update-index --chmod=+x FILE)"},
	{ID: "link-outside", Severity: Levels{Error, Off, Warning, Warning}, check: linksCheck,
		Summary: "The entrypoint or a file under scripts/ is a symbolic link outside the skill folder (or nowhere); install refuses the skill.",
		Hint:    "copy the file into the skill folder instead of linking to it"},

	// Body.
	{ID: "reference-missing", Severity: all(Warning), check: referencesCheck,
		Summary: "A relative link in the body points to a file that is not in the skill.",
		Hint:    "add the file or fix the link"},
	{ID: "body-too-long", Severity: all(Warning), check: bodySizeCheck,
		Summary: "The body is longer than 500 lines.",
		Hint:    "move detail into references/ files and link to them"},
	{ID: "body-too-many-tokens", Severity: all(Warning), check: bodySizeCheck,
		Summary: "The body is estimated at more than 5000 tokens.",
		Hint:    "move detail into references/ files and link to them"},
}

var rulesByID = func() map[string]*Rule {
	m := make(map[string]*Rule, len(Rules))
	for _, r := range Rules {
		m[r.ID] = r
	}
	return m
}()

// RuleByID returns the rule with id, or nil.
func RuleByID(id string) *Rule { return rulesByID[id] }

// LevelNames are the levels a rule can be set to (config validate.rules, --rule).
var LevelNames = []string{"off", Info, Warning, Error}

// RuleIDs lists every rule id, in the order of Rules.
func RuleIDs() []string {
	ids := make([]string, len(Rules))
	for i, r := range Rules {
		ids[i] = r.ID
	}
	return ids
}

// CheckLevel reports why rule cannot be set to level: an unknown rule
// (with the closest ids) or level.
func CheckLevel(rule, level string) error {
	if RuleByID(rule) == nil {
		msg := fmt.Sprintf("unknown rule %q", rule)
		if near := skill.Closest(rule, RuleIDs()); len(near) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, ", "))
		} else {
			msg += " ('skillctl validate --help' points to the list of rules)"
		}
		return fmt.Errorf("%s", msg)
	}
	for _, l := range LevelNames {
		if level == l {
			return nil
		}
	}
	return fmt.Errorf("rule %s: level must be off, info, warning or error, not %q", rule, level)
}
