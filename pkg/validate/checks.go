package validate

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"gopkg.in/yaml.v3"

	"github.com/skillctl/skillctl/pkg/skill"
)

// Limits of the specification.
const (
	MaxNameLength          = skill.MaxNameLength
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
	MaxBodyLines           = 500
	MaxBodyTokens          = 5000
)

var (
	yamlFeaturesCheck  = &check{run: checkYAMLFeatures}
	unknownFieldsCheck = &check{run: checkUnknownFields}
	nameCheck          = &check{run: checkName}
	descriptionCheck   = &check{run: checkDescription}
	compatibilityCheck = &check{run: checkCompatibility}
	metadataCheck      = &check{run: checkMetadata}
	allowedToolsCheck  = &check{run: checkAllowedTools}
	fieldTypesCheck    = &check{run: checkFieldTypes}
	modeCheck          = &check{run: checkMode}
	timeoutCheck       = &check{run: checkTimeout}
	permissionsCheck   = &check{run: checkPermissions}
	entrypointCheck    = &check{run: checkEntrypoint}
	scriptsCheck       = &check{run: checkScripts}
	referencesCheck    = &check{run: checkReferences}
	bodySizeCheck      = &check{run: checkBodySize}
	linksCheck         = &check{run: checkLinks}
)

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return "text"
}

// checkYAMLFeatures finds what strict YAML refuses: flow collections,
// anchors and aliases, and explicit tags.
func checkYAMLFeatures(c *checker) {
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if n.Style&yaml.FlowStyle != 0 && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) {
			what := "list"
			if n.Kind == yaml.MappingNode {
				what = "mapping"
			}
			c.addNode("yaml-flow-style", n, "", "flow-style %s; strict YAML (the reference validator) refuses it", what)
		}
		if n.Anchor != "" {
			c.addNode("yaml-anchor", n, "", "anchor &%s; strict YAML (the reference validator) refuses anchors", n.Anchor)
		}
		if n.Kind == yaml.AliasNode {
			c.addNode("yaml-anchor", n, "", "alias *%s; strict YAML (the reference validator) refuses aliases", n.Value)
			return
		}
		if n.Style&yaml.TaggedStyle != 0 {
			c.addNode("yaml-tag", n, "", "explicit tag %s; strict YAML (the reference validator) refuses tags", n.Tag)
		}
		for _, ch := range n.Content {
			walk(ch)
		}
	}
	walk(c.doc.Root)
}

// knownFields returns the top-level keys a profile accepts.
func knownFields(profile string) map[string]bool {
	m := map[string]bool{}
	add := func(l []string) {
		for _, k := range l {
			m[k] = true
		}
	}
	add(skill.StandardFields)
	switch profile {
	case ProfileClaudeCode:
		add(skill.ClaudeCodeFields)
	case ProfileSpec, ProfileAnthropicAPI:
	default:
		add(skill.ClaudeCodeFields)
		add(skill.ExecutionFields)
	}
	return m
}

var knownByProfile = map[string]map[string]bool{
	ProfileDefault:      knownFields(ProfileDefault),
	ProfileSpec:         knownFields(ProfileSpec),
	ProfileClaudeCode:   knownFields(ProfileClaudeCode),
	ProfileAnthropicAPI: knownFields(ProfileAnthropicAPI),
}

func checkUnknownFields(c *checker) {
	known := knownByProfile[c.pt.profile]
	if known == nil {
		known = knownByProfile[ProfileDefault]
	}
	var unknown []string
	var first *yaml.Node
	root := c.doc.Root
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if !known[k.Value] {
			if first == nil {
				first = k
			}
			unknown = append(unknown, k.Value)
		}
	}
	if len(unknown) == 0 {
		return
	}
	sort.Strings(unknown)
	unknown = slices.Compact(unknown)
	allowed := make([]string, 0, len(known))
	for k := range known {
		allowed = append(allowed, k)
	}
	sort.Strings(allowed)
	word := "field"
	if len(unknown) > 1 {
		word = "fields"
	}
	if c.pt.sev["unknown-field"] == Warning {
		c.addNode("unknown-field", first, "", "unknown %s %s; agents ignore %s", word, strings.Join(unknown, ", "),
			map[bool]string{true: "them", false: "it"}[len(unknown) > 1])
		return
	}
	hint := "allowed under the " + c.pt.profile + " profile: " + strings.Join(allowed, ", ") +
		"; move other keys under metadata: as strings"
	c.addNode("unknown-field", first, hint, "unexpected %s in frontmatter: %s", word, strings.Join(unknown, ", "))
}

// isSpace is Python's notion of whitespace for str.strip().
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

func trimSpace(s string) string { return strings.TrimFunc(s, isSpace) }

func checkName(c *checker) {
	k, n := c.field("name")
	if n == nil {
		hint := "add name: followed by the skill's name in lowercase letters, digits and hyphens"
		if fixed := skill.ValidName(norm.NFKC.String(c.t.dirName)); fixed != "" {
			hint = "add name: " + fixed
			if fixed != c.t.dirName {
				hint += " and rename the folder to " + fixed
			}
		}
		c.addNode("name-missing", c.missingAt(), hint, "the required field name is missing")
		return
	}
	if n.Kind != yaml.ScalarNode {
		c.addNode("name-missing", n, "", "name must be text, not %s", kindName(n))
		return
	}
	_ = k
	raw := trimSpace(n.Value)
	if raw == "" {
		c.addNode("name-missing", n, "", "name is empty")
		return
	}
	name := norm.NFKC.String(raw)
	before := len(c.res.Findings)
	// Every hint that proposes a name proposes a valid one.
	fixed := skill.ValidName(name)
	useFixed := func(what string) string {
		if fixed == "" {
			return what + ", e.g. pdf-tools"
		}
		return what + ", e.g. name: " + fixed
	}
	for _, is := range skill.NameIssues(name) {
		switch is.Kind {
		case skill.NameTooLong:
			hint := ""
			if fixed != "" {
				hint = "shorten the name to 64 characters or fewer (e.g. " + fixed + ") and rename the folder to match"
			}
			c.addNode("name-too-long", n, hint, "name %q is %d characters long; the limit is %d", name, is.Length, MaxNameLength)
		case skill.NameUppercase:
			hint := "write the name in lowercase: " + is.Lower
			if skill.ValidName(is.Lower) != is.Lower {
				hint = useFixed("write the name in lowercase letters, digits and single hyphens")
			}
			c.addNode("name-format", n, hint, "name %q must be lowercase", name)
		case skill.NameHyphenEnd:
			c.addNode("name-format", n, useFixed("remove the leading or trailing hyphen"), "name %q starts or ends with a hyphen", name)
		case skill.NameDoubleHyphen:
			c.addNode("name-format", n, useFixed("use single hyphens between words"), "name %q contains consecutive hyphens", name)
		case skill.NameBadChars:
			c.addNode("name-format", n, useFixed("use only letters, digits and hyphens"),
				"name %q contains invalid characters (%s); only letters, digits and hyphens are allowed", name, strings.Join(is.Chars, " "))
		}
	}
	badFormat := len(c.res.Findings) > before
	if c.t.dirName != "" {
		if dir := norm.NFKC.String(c.t.dirName); dir != name {
			var hint string
			dirOK := skill.ValidName(dir) == dir
			switch {
			case !badFormat && dirOK:
				hint = "rename the folder to " + name + " or set name: " + dir
			case !badFormat:
				hint = "rename the folder to " + name
			case dirOK:
				hint = "set name: " + dir + " (and keep the folder's name)"
			case fixed != "":
				hint = "set name: " + fixed + " and rename the folder to " + fixed
			default:
				hint = "give the skill a name of lowercase letters, digits and hyphens, and the folder the same name"
			}
			c.addNode("name-dir-mismatch", n, hint,
				"name %q does not match the folder name %q", name, c.t.dirName)
		}
	}
	if c.on("name-not-ascii") {
		for _, r := range name {
			if r >= utf8.RuneSelf {
				c.addNode("name-not-ascii", n, "", "name %q has characters outside ASCII", name)
				break
			}
		}
	}
	if c.on("name-reserved") {
		for _, w := range []string{"anthropic", "claude"} {
			if strings.Contains(name, w) {
				c.addNode("name-reserved", n, "", "name %q contains the reserved word %q", name, w)
			}
		}
	}
}

func checkDescription(c *checker) {
	_, n := c.field("description")
	if n == nil {
		c.addNode("description-missing", c.missingAt(), "", "the required field description is missing")
		return
	}
	if n.Kind != yaml.ScalarNode {
		c.addNode("description-missing", n, "", "description must be text, not %s", kindName(n))
		return
	}
	if trimSpace(n.Value) == "" {
		c.addNode("description-missing", n, "", "description is empty")
		return
	}
	if l := utf8.RuneCountInString(n.Value); l > MaxDescriptionLength {
		c.addNode("description-too-long", n, "", "description is %d characters long; the limit is %d", l, MaxDescriptionLength)
	}
	if c.on("description-placeholder") && IsPlaceholder(n.Value) {
		c.addNode("description-placeholder", n, "", "the description is a placeholder: %q", firstWords(trimSpace(n.Value), 8))
	}
	if c.on("description-xml-tags") && strings.ContainsAny(n.Value, "<>") {
		c.addNode("description-xml-tags", n, "", "description contains '<' or '>'")
	}
}

func checkCompatibility(c *checker) {
	_, n := c.field("compatibility")
	if n == nil {
		return
	}
	if n.Kind != yaml.ScalarNode {
		c.addNode("compatibility-not-string", n, "", "compatibility must be text, not %s", kindName(n))
		return
	}
	if l := utf8.RuneCountInString(n.Value); l > MaxCompatibilityLength {
		c.addNode("compatibility-too-long", n, "", "compatibility is %d characters long; the limit is %d", l, MaxCompatibilityLength)
	}
	if trimSpace(n.Value) == "" {
		c.addNode("compatibility-empty", n, "", "compatibility is empty")
	}
}

func isEmptyScalar(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0
}

func checkMetadata(c *checker) {
	_, n := c.field("metadata")
	if n == nil || isEmptyScalar(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		c.addNode("metadata-not-map", n, "", "metadata must be a mapping of keys to strings, not %s", kindName(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v := n.Content[i+1]; v.Kind != yaml.ScalarNode {
			c.addNode("metadata-value-not-string", v, "", "metadata.%s is %s; metadata values are strings", n.Content[i].Value, kindName(v))
		}
	}
}

func checkAllowedTools(c *checker) {
	_, n := c.field("allowed-tools")
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return
	case yaml.SequenceNode:
		for _, it := range n.Content {
			if it.Kind != yaml.ScalarNode {
				c.addNode("allowed-tools-invalid", it, "", "allowed-tools lists %s; every entry must be text", kindName(it))
				return
			}
		}
		c.addNode("allowed-tools-list", n, "", "allowed-tools is a list; the specification defines a space-separated string")
	default:
		c.addNode("allowed-tools-invalid", n, "", "allowed-tools must be a string or a list of strings, not %s", kindName(n))
	}
}

// Field shapes checked by field-type, per profile that knows the field.
var (
	textFields       = []string{"license"}
	claudeTextFields = []string{"when_to_use", "model", "effort", "context", "agent", "shell"}
	claudeBoolFields = []string{"disable-model-invocation", "user-invocable", "background"}
	claudeListFields = []string{"disallowed-tools", "paths"}
	execTextFields   = []string{"entrypoint", "confirm", "author", "version", "category"}
	execBoolFields   = []string{"dangerous"}
	execListFields   = []string{"tags"}
)

func checkFieldTypes(c *checker) {
	text := func(keys []string) {
		for _, k := range keys {
			if _, n := c.field(k); n != nil && n.Kind != yaml.ScalarNode {
				c.addNode("field-type", n, "", "%s must be text, not %s", k, kindName(n))
			}
		}
	}
	boolean := func(keys []string) {
		for _, k := range keys {
			_, n := c.field(k)
			if n == nil {
				continue
			}
			if n.Kind != yaml.ScalarNode || (n.Tag != "!!bool" && !isEmptyScalar(n)) {
				c.addNode("field-type", n, "write "+k+": true or "+k+": false", "%s must be true or false", k)
			}
		}
	}
	list := func(keys []string) {
		for _, k := range keys {
			if _, n := c.field(k); n != nil && n.Kind == yaml.MappingNode {
				c.addNode("field-type", n, "", "%s must be a list or text, not a mapping", k)
			}
		}
	}
	text(textFields)
	switch c.pt.profile {
	case ProfileAnthropicAPI, ProfileSpec:
		return
	}
	text(claudeTextFields)
	boolean(claudeBoolFields)
	list(claudeListFields)
	if c.pt.profile == ProfileClaudeCode {
		return
	}
	text(execTextFields)
	boolean(execBoolFields)
	list(execListFields)
}

// execField finds a skillctl execution field: top level first, then under metadata.
func (c *checker) execField(key string) (*yaml.Node, string) {
	if _, n := c.field(key); n != nil {
		return n, key
	}
	_, md := c.field("metadata")
	if md != nil && md.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(md.Content); i += 2 {
			if md.Content[i].Value == key {
				return md.Content[i+1], "metadata." + key
			}
		}
	}
	return nil, ""
}

func checkMode(c *checker) {
	n, where := c.execField("mode")
	if n == nil || isEmptyScalar(n) {
		return
	}
	v := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode || (v != skill.ModeSandbox && v != skill.ModeDirect) {
		c.addNode("mode-invalid", n, "", "%s is %q; it must be sandbox or direct", where, v)
	}
}

func checkTimeout(c *checker) {
	n, where := c.execField("timeout")
	if n == nil {
		return
	}
	v := strings.TrimSpace(n.Value)
	if n.Kind == yaml.ScalarNode {
		if _, err := skill.ParseTimeoutMS(v); err == nil {
			return
		}
	}
	c.addNode("timeout-invalid", n, "", "%s is %q; it must be a whole number of milliseconds from 1 to %d (24 h)", where, v, skill.MaxTimeout.Milliseconds())
}

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func checkPermissions(c *checker) {
	n, where := c.execField("permissions")
	if n == nil {
		return
	}
	var items []*yaml.Node
	switch n.Kind {
	case yaml.SequenceNode:
		items = n.Content
	case yaml.ScalarNode:
		for _, p := range strings.FieldsFunc(n.Value, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
			items = append(items, &yaml.Node{Kind: yaml.ScalarNode, Value: p, Line: n.Line, Column: n.Column})
		}
	default:
		c.addNode("permissions-invalid", n, "", "%s must be a list, not %s", where, kindName(n))
		return
	}
	for _, it := range items {
		v := strings.TrimSpace(it.Value)
		if it.Kind == yaml.ScalarNode && (v == "network" || (strings.HasPrefix(v, "env:") && envNameRe.MatchString(v[4:]))) {
			continue
		}
		c.addNode("permissions-invalid", it, "", "%s has %q; permissions are network or env:NAME", where, v)
	}
}

func checkEntrypoint(c *checker) {
	n, where := c.execField("entrypoint")
	if n != nil && !isEmptyScalar(n) {
		if n.Kind != yaml.ScalarNode {
			c.addNode("entrypoint-missing", n, "", "%s must be a path, not %s", where, kindName(n))
			return
		}
		v := strings.TrimSpace(n.Value)
		clean, err := skill.CheckRelPath(v)
		if err != nil {
			c.addNode("entrypoint-missing", n, "", "%s %q leaves the skill folder", where, v)
			return
		}
		fi, err := fs.Stat(c.t.fsys, clean)
		switch {
		case err != nil:
			c.addNode("entrypoint-missing", n, "", "%s %q is not in the skill", where, v)
		case fi.IsDir():
			c.addNode("entrypoint-missing", n, "", "%s %q is a folder, not a script", where, v)
		}
		return
	}
	m, _ := c.execField("mode")
	if m == nil || strings.TrimSpace(m.Value) != skill.ModeSandbox {
		return
	}
	if c.t.hasEntry("scripts", true) {
		for _, p := range skill.DefaultEntrypoints {
			if fi, err := fs.Stat(c.t.fsys, p); err == nil && !fi.IsDir() {
				return
			}
		}
	}
	c.addNode("entrypoint-missing", m, "add scripts/run.sh, or set entrypoint: to the script to run",
		"mode is sandbox but there is no entrypoint and none of scripts/run, scripts/run.{sh,py,js}, scripts/execute.{sh,py,js}")
}

func checkScripts(c *checker) {
	if c.t.noExecBits || !c.t.hasEntry("scripts", true) {
		return
	}
	entries, err := fs.ReadDir(c.t.fsys, "scripts")
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || fi.Mode()&0o111 != 0 {
			continue
		}
		rel := "scripts/" + e.Name()
		if !hasShebang(c.t.fsys, rel) {
			continue
		}
		how := "run cannot start it"
		if prog := skill.Interpreter(rel); prog != "" {
			how = "run will start it with " + prog
		}
		c.add("script-not-executable", c.t.join(rel), 1, 1, "", "%s starts with #! but is not executable; %s", rel, how)
	}
}

// maxLinkFindings bounds the link-outside findings of one skill.
const maxLinkFindings = 20

// checkLinks finds, as install does, symbolic links that resolve outside
// the skill folder on disk, or nowhere, where run would follow them: the
// declared entrypoint and everything under scripts/ (the conventional
// entrypoints included). Only those are looked at, so that validating a
// tree lists no folder it did not have to. Archives need no check here:
// one such link anywhere makes the whole archive archive-unsafe.
func checkLinks(c *checker) {
	if c.t.abs == "" {
		return
	}
	var base string
	found := 0
	check := func(rel string) {
		p := filepath.Join(c.t.abs, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 || found >= maxLinkFindings {
			return
		}
		if base == "" {
			if base, err = filepath.EvalSymlinks(c.t.abs); err != nil {
				return
			}
		}
		target, _ := os.Readlink(p)
		real, inside, err := skill.LinkTarget(base, p)
		switch {
		case err != nil:
			found++
			c.add("link-outside", c.t.join(rel), 0, 0, "", "%s is a symbolic link to %q, which does not resolve; install refuses the skill", rel, target)
		case !inside:
			found++
			c.add("link-outside", c.t.join(rel), 0, 0, "", "%s is a symbolic link to %s, outside the skill folder; install refuses the skill and run does not start it", rel, real)
		}
	}
	if n, _ := c.execField("entrypoint"); n != nil && n.Kind == yaml.ScalarNode {
		if rel, err := skill.CheckRelPath(strings.TrimSpace(n.Value)); err == nil && !strings.HasPrefix(rel, "scripts/") {
			check(rel)
		}
	}
	if !c.t.hasEntry("scripts", true) {
		return
	}
	check("scripts")
	var visit func(rel string)
	visit = func(rel string) {
		ents, err := os.ReadDir(filepath.Join(c.t.abs, filepath.FromSlash(rel)))
		if err != nil {
			return
		}
		for _, e := range ents {
			r := rel + "/" + e.Name()
			switch {
			case skill.Clutter(e.Name(), e.IsDir()):
			case e.IsDir():
				visit(r)
			case e.Type()&fs.ModeSymlink != 0:
				check(r)
			}
		}
	}
	visit("scripts")
}

func hasShebang(fsys fs.FS, rel string) bool {
	f, err := fsys.Open(rel)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [2]byte
	n, _ := io.ReadFull(f, b[:])
	return n == 2 && b[0] == '#' && b[1] == '!'
}

func checkBodySize(c *checker) {
	body := c.doc.Body
	lines := strings.Count(body, "\n")
	if body != "" && !strings.HasSuffix(body, "\n") {
		lines++
	}
	if lines > MaxBodyLines {
		c.add("body-too-long", "", c.doc.BodyLine+MaxBodyLines, 1, "", "the body is %d lines long; keep it under %d", lines, MaxBodyLines)
	}
	if t := skill.EstimateTokens(len(body)); t > MaxBodyTokens {
		c.add("body-too-many-tokens", "", c.doc.BodyLine, 1, "", "the body is about %d tokens; keep it under %d", t, MaxBodyTokens)
	}
}

// IsPlaceholder reports whether a description says it is yet to be
// written: it starts with TODO, TBD, FIXME or XXX as a word, or is the
// sentence earlier versions of 'skillctl init' wrote ("Describe what NAME
// does and when an agent should use it.").
func IsPlaceholder(desc string) bool {
	d := trimSpace(desc)
	for _, w := range []string{"TODO", "TBD", "FIXME", "XXX"} {
		if len(d) >= len(w) && strings.EqualFold(d[:len(w)], w) {
			rest := d[len(w):]
			if rest == "" {
				return true
			}
			r, _ := utf8.DecodeRuneInString(rest)
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return true
			}
		}
	}
	return oldPlaceholder.MatchString(d)
}

var oldPlaceholder = regexp.MustCompile(`^Describe what \S+ does and when an agent should use it\.$`)

// firstWords is s cut after n words, with "…" when it was cut.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + "…"
}
