// Package skill is the domain of skillctl: the Agent Skill model, the SKILL.md
// parser, the inventory of a skill folder, safe reads inside it, and the
// discovery of skills across the folders agents read.
package skill

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// Sources, lowest precedence first.
const (
	SourceUser    = "user"
	SourceProject = "project"
	SourceEnv     = "env"
	SourcePath    = "path"
	SourcePlugin  = "plugin"
)

// Sources lists every source tier, lowest precedence first.
var Sources = []string{SourceUser, SourceProject, SourceEnv, SourcePath, SourcePlugin}

// Execution modes.
const (
	ModeSandbox = "sandbox"
	ModeDirect  = "direct"
	// ModeAuto is sandbox when the skill has an entrypoint, else direct.
	ModeAuto = "auto"
)

// Errors callers map to exit codes.
var (
	// ErrNotFound: a skill, path or file that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrDenied: a request refused by a rule (a path leaving the skill folder, a permission).
	ErrDenied = errors.New("denied")
	// ErrInvalid: a skill that cannot be loaded or fails validation.
	ErrInvalid = errors.New("invalid skill")
)

// Mark returns err marked as one of the errors above (kind): errors.Is
// finds kind, while the message stays err's own sentence, with no ": not
// found" tacked on.
func Mark(err, kind error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, kind: kind}
}

type marked struct{ err, kind error }

func (m *marked) Error() string        { return m.err.Error() }
func (m *marked) Unwrap() error        { return m.err }
func (m *marked) Is(target error) bool { return target == m.kind }

// StandardFields are the top-level keys of the Agent Skills specification.
var StandardFields = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// ClaudeCodeFields are the Claude Code extensions to the frontmatter.
var ClaudeCodeFields = []string{"when_to_use", "argument-hint", "arguments", "disable-model-invocation",
	"user-invocable", "disallowed-tools", "model", "effort", "context", "agent", "background", "hooks", "paths", "shell"}

// ExecutionFields are skillctl's own fields; they may also be given as strings under metadata.
var ExecutionFields = []string{"mode", "entrypoint", "timeout", "permissions", "dangerous", "confirm",
	"author", "version", "tags", "category"}

// Skill is one loaded skill.
type Skill struct {
	// Name is the frontmatter name (trimmed), else the folder name.
	Name string
	// NameDeclared is true when the frontmatter gives a non-empty name.
	NameDeclared bool
	// ID is <source>:<name>, or <plugin>:<name> for plugin skills.
	ID string
	// Source is the discovery tier (user, project, env, path, plugin), or "path"
	// for a skill named by its folder.
	Source string
	// Plugin is the plugin name for plugin skills.
	Plugin string
	// Dir is the skill folder; File is its SKILL.md.
	Dir  string
	File string

	Description   string
	License       string
	Compatibility string
	AllowedTools  []string

	// Frontmatter holds every frontmatter field as plain values (scalars keep
	// their source text; true/false stay booleans).
	Frontmatter map[string]any
	// Metadata is the metadata field's string values.
	Metadata map[string]string

	Exec Execution
	// Mode is the mode a run uses without --mode, when discovery worked it
	// out (see RunMode); empty otherwise.
	Mode string
	// modeDefault is the configured default mode EffectiveMode works Mode
	// out with, when discovery left it to be worked out on demand.
	modeDefault string
	// DefaultEntry is the conventional entrypoint found by ProbeEntrypoint.
	DefaultEntry string
	entryProbed  bool

	DisableModelInvocation bool

	// Body is the Markdown after the frontmatter; Summary its first 200 characters.
	Body    string
	Summary string
	// Tokens is an estimate of the tokens SKILL.md costs when loaded.
	Tokens int
	// Size of SKILL.md in bytes.
	Size int64

	// Doc is the parsed SKILL.md (nil when loaded with BodyDropped).
	Doc *Document
	// Diagnostics are warnings recorded while loading.
	Diagnostics []Diagnostic
	// LowercaseFile is true when the file is skill.md rather than SKILL.md.
	LowercaseFile bool
}

// Execution holds skillctl's execution fields, read from the top level or from metadata.
type Execution struct {
	Mode        string   // as written; empty when not given
	Entrypoint  string   // path inside the skill
	Timeout     string   // as written (milliseconds)
	TimeoutMS   int64    // parsed; 0 when absent or invalid
	Permissions []string // network, env:NAME
	Dangerous   bool
	Confirm     string
	Author      string
	Version     string
	Tags        []string
	Category    string
}

// EffectiveMode is the mode a run uses without --mode: Mode when
// discovery set it, else RunMode with the default discovery was given
// (SetDefaultMode; auto when none), worked out once.
func (s *Skill) EffectiveMode() string {
	if s.Mode == "" {
		s.Mode = s.RunMode(s.modeDefault)
	}
	return s.Mode
}

// SetDefaultMode gives the configured default mode (config
// run.defaultMode) that EffectiveMode works with.
func (s *Skill) SetDefaultMode(m string) { s.modeDefault = m }

// LoadOptions tune Load.
type LoadOptions struct {
	// Source is recorded on the skill (default "path").
	Source string
	// Plugin names the plugin of a plugin skill.
	Plugin string
	// DropBody keeps only the typed fields (no Body, Summary, Doc,
	// Frontmatter or Metadata map), for listings of many skills.
	DropBody bool
	// FileSize is the size of SKILL.md when data holds only its
	// frontmatter (0: len(data)).
	FileSize int64
}

// LoadError is a skill folder that could not be loaded.
type LoadError struct {
	Path   string
	Reason string
	Err    error
}

func (e *LoadError) Error() string {
	if e.Reason != "" {
		return e.Path + ": " + e.Reason
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *LoadError) Unwrap() error { return e.Err }

// Load reads the skill in dir (a folder holding SKILL.md, or a lone skill.md).
func Load(dir string, opts LoadOptions) (*Skill, error) {
	var s *Skill
	load := func(file string, data []byte, size int64) (err error) {
		o := opts
		o.FileSize = size
		s, err = FromBytes(data, dir, file, o)
		return err
	}
	file := filepath.Join(dir, "SKILL.md")
	err := withSkillFile(file, opts.DropBody, nil, load)
	lower := false
	if err != nil && s == nil && errors.Is(err, fs.ErrNotExist) {
		lfile := filepath.Join(dir, "skill.md")
		if lerr := withSkillFile(lfile, opts.DropBody, nil, load); lerr == nil {
			err, lower = nil, true
		} else if !errors.Is(lerr, fs.ErrNotExist) {
			err = lerr
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir); serr != nil {
				return nil, &LoadError{Path: dir, Err: ErrNotFound, Reason: "folder does not exist"}
			}
			return nil, &LoadError{Path: dir, Err: ErrNotFound, Reason: "no SKILL.md in the folder"}
		}
		return nil, err
	}
	markLowercase(s, lower)
	return s, nil
}

func markLowercase(s *Skill, lower bool) {
	s.LowercaseFile = lower
	if lower {
		s.Diagnostics = append(s.Diagnostics, Diagnostic{Rule: "skill-md-lowercase", Severity: SeverityWarning,
			Message: "the file is named skill.md; agents look for SKILL.md", Hint: "rename it to SKILL.md"})
	}
}

// LoadData builds the skill in dir from the content of its skill file
// (file is the path of SKILL.md or of a lone skill.md), as Load would.
func LoadData(dir, file string, data []byte, opts LoadOptions) (*Skill, error) {
	s, err := FromBytes(data, dir, file, opts)
	if err != nil {
		return nil, err
	}
	markLowercase(s, filepath.Base(file) == "skill.md")
	return s, nil
}

// NewReadBuf returns a read buffer for ReadSkillFileAt.
func NewReadBuf() *[]byte { return newReadBuf() }

// ReadSkillFileAt reads the SKILL.md rel, relative to the folder dirfd
// (see OpenDirFD; -1: file is opened by its path), and hands its bytes to
// fn, refusing files over MaxSkillMDSize. The bytes are valid only during
// the call. buf (nil: a pooled one) is the read buffer; fast takes a short
// read as the end of a regular file. A folder named SKILL.md is a
// *LoadError wrapping syscall.EISDIR; a missing file wraps fs.ErrNotExist.
//
// With fast, a file whose frontmatter closes in its first 4 KiB is not
// read on: data ends with the frontmatter, and size is the file's size
// (listings read frontmatter, as agents do when they start).
func ReadSkillFileAt(dirfd int, rel, file string, fast bool, buf *[]byte, fn func(data []byte, size int64) error) error {
	return withSkillFileAt(dirfd, rel, file, fast, buf, func(_ string, data []byte, size int64) error { return fn(data, size) })
}

// readBufPool holds read buffers for SKILL.md files.
var readBufPool = sync.Pool{New: func() any { return newReadBuf() }}

func newReadBuf() *[]byte {
	b := make([]byte, 16<<10)
	return &b
}

// ReadSkillFile reads a SKILL.md, refusing files over MaxSkillMDSize without
// reading them whole. A folder named SKILL.md is refused.
func ReadSkillFile(file string) ([]byte, error) {
	var out []byte
	err := withSkillFile(file, false, nil, func(_ string, data []byte, _ int64) error {
		out = append([]byte(nil), data...)
		return nil
	})
	return out, err
}

// withSkillFile reads a SKILL.md and hands its bytes to fn; the bytes are
// only valid during the call (small files are read into a pooled buffer).
// fast takes a short read as the end of the file (see readSkillFile); bp
// is the buffer to read into (nil: a pooled one).
// With fast, a large file's body is not read: data ends with the
// frontmatter and size is the file's size.
func withSkillFile(file string, fast bool, bp *[]byte, fn func(file string, data []byte, size int64) error) error {
	return withSkillFileAt(-1, "", file, fast, bp, fn)
}

func withSkillFileAt(dirfd int, rel, file string, fast bool, bp *[]byte, fn func(file string, data []byte, size int64) error) error {
	if bp == nil {
		bp = readBufPool.Get().(*[]byte)
		defer readBufPool.Put(bp)
	}
	n, size, err := readSkillFile(dirfd, rel, file, bp, fast, fast, MaxSkillMDSize)
	if err != nil {
		if errors.Is(err, syscall.EISDIR) {
			return &LoadError{Path: file, Err: err, Reason: "SKILL.md is a folder, not a file"}
		}
		return &LoadError{Path: file, Err: err, Reason: OSReason(err)}
	}
	if size > MaxSkillMDSize {
		return &ParseError{Rule: "file-too-large", File: file,
			Msg:  "SKILL.md is " + HumanSize(size) + ", larger than the " + HumanSize(MaxSkillMDSize) + " limit",
			Hint: "move long material into references/ files that the body links to"}
	}
	return fn(file, (*bp)[:n], size)
}

// frontmatterEnd is the length of data up to the end of the line that
// closes its frontmatter, or -1 when the frontmatter does not close within
// data (a listing then reads the whole file).
func frontmatterEnd(data []byte) int {
	data0 := len(data)
	data = bytes.TrimPrefix(data, utf8BOM)
	off := data0 - len(data)
	first := true
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return -1 // the line goes on past what was read
		}
		line := data[:i]
		if isFenceLine(line) && !first {
			return off + i + 1
		}
		if first && !isFenceLine(line) {
			return -1
		}
		first = false
		data = data[i+1:]
		off += i + 1
	}
	return -1
}

// OSReason is an operating-system error in a few words ("open: permission
// denied"), without the path the caller already names.
func OSReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// FromBytes builds a skill from SKILL.md content; dir is the skill folder.
func FromBytes(data []byte, dir, file string, opts LoadOptions) (*Skill, error) {
	doc, err := parse(data, file, !opts.DropBody)
	if err != nil {
		return nil, err
	}
	size := int64(len(data))
	if opts.FileSize > size {
		size = opts.FileSize // a listing read only the frontmatter
	}
	s := &Skill{Dir: dir, File: file, Size: size, Doc: doc}
	s.Source = opts.Source
	if s.Source == "" {
		s.Source = SourcePath
	}
	s.Plugin = opts.Plugin
	s.Diagnostics = append(s.Diagnostics, doc.Diagnostics...)
	s.fill(doc, !opts.DropBody)
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	if s.Plugin != "" {
		s.ID = s.Plugin + ":" + s.Name
	} else {
		s.ID = s.Source + ":" + s.Name
	}
	s.Summary = doc.BodySummary
	if doc.fieldsPool != nil {
		*doc.fieldsPool = doc.fields[:0]
		fastFieldPool.Put(doc.fieldsPool)
		doc.fields, doc.fieldsPool = nil, nil
	}
	s.Tokens = EstimateTokens(int(size))
	s.Body = doc.Body
	if opts.DropBody {
		s.Doc = nil
		s.detach()
		*doc = Document{}
		docPool.Put(doc)
	}
	return s, nil
}

// detach copies every string a skill loaded for a listing keeps out of
// the frontmatter, which was read in place from a buffer that is reused.
func (s *Skill) detach() {
	e := &s.Exec
	var ptrs [16]*string
	keep := append(ptrs[:0], &s.Name, &s.Description, &s.License, &s.Compatibility,
		&e.Mode, &e.Entrypoint, &e.Timeout, &e.Confirm, &e.Author, &e.Version, &e.Category)
	for _, l := range [][]string{s.AllowedTools, e.Permissions, e.Tags} {
		for i := range l {
			keep = append(keep, &l[i])
		}
	}
	for i := range s.Diagnostics {
		d := &s.Diagnostics[i]
		keep = append(keep, &d.Rule, &d.Severity, &d.Message, &d.Hint)
	}
	// One allocation holds them all.
	n := 0
	for _, p := range keep {
		n += len(*p)
	}
	arena := make([]byte, 0, n)
	for _, p := range keep {
		if len(*p) == 0 {
			continue
		}
		start := len(arena)
		arena = append(arena, *p...)
		*p = unsafe.String(&arena[start], len(*p))
	}
	s.Metadata = nil // read for the execution fields; a listing keeps no more of it
}

// Field returns the value node of a top-level frontmatter key, or nil.
func (d *Document) Field(key string) *yaml.Node {
	if d == nil || d.Root == nil {
		return nil
	}
	for i := 0; i+1 < len(d.Root.Content); i += 2 {
		if d.Root.Content[i].Value == key {
			return d.Root.Content[i+1]
		}
	}
	return nil
}

// KeyNode returns the key node of a top-level frontmatter key, or nil.
func (d *Document) KeyNode(key string) *yaml.Node {
	if d == nil || d.Root == nil {
		return nil
	}
	for i := 0; i+1 < len(d.Root.Content); i += 2 {
		if d.Root.Content[i].Value == key {
			return d.Root.Content[i]
		}
	}
	return nil
}

func (s *Skill) fill(doc *Document, frontmatter bool) {
	if frontmatter && doc.Root != nil {
		root := doc.Root
		s.Frontmatter = make(map[string]any, len(root.Content)/2)
		budget := 10000
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := root.Content[i].Value, root.Content[i+1]
			s.Frontmatter[k] = NodeValue(v, &budget)
		}
	}
	text := func(key string) string { t, _ := doc.fieldText(key); return t }
	s.Name = strings.TrimSpace(text("name"))
	s.NameDeclared = s.Name != ""
	s.Description = text("description")
	s.License = text("license")
	s.Compatibility = text("compatibility")
	s.AllowedTools, _ = doc.fieldList("allowed-tools", false)
	if doc.Root != nil {
		s.Metadata = doc.metadataStrings()
	}
	s.DisableModelInvocation = boolText(text("disable-model-invocation"))

	// Execution fields: top level first, then metadata strings.
	meta := func(key string) (string, bool) {
		if s.Metadata != nil || doc.Root != nil {
			v, ok := s.Metadata[key]
			return v, ok
		}
		return doc.metadataValue(key) // a listing builds no map
	}
	get := func(key string) (string, bool) {
		if t, ok := doc.fieldText(key); ok {
			return t, true
		}
		return meta(key)
	}
	list := func(key string) []string {
		if l, ok := doc.fieldList(key, true); ok {
			return l
		}
		if v, ok := meta(key); ok {
			return splitList(v)
		}
		return nil
	}
	e := &s.Exec
	if v, ok := get("mode"); ok {
		e.Mode = strings.TrimSpace(v)
	}
	if v, ok := get("entrypoint"); ok {
		e.Entrypoint = strings.TrimSpace(v)
	}
	if v, ok := get("timeout"); ok {
		e.Timeout = strings.TrimSpace(v)
		if ms, err := ParseTimeoutMS(e.Timeout); err == nil {
			e.TimeoutMS = ms
		}
	}
	e.Permissions = list("permissions")
	if v, ok := get("dangerous"); ok {
		e.Dangerous = boolText(v)
	}
	e.Confirm, _ = get("confirm")
	e.Author, _ = get("author")
	e.Version, _ = get("version")
	e.Tags = list("tags")
	e.Category, _ = get("category")
}

// knownKeys are the top-level fields a skill reads; the fast reader's
// fields are indexed by them once (topField) rather than searched for each.
var knownKeys = [...]string{"name", "description", "license", "compatibility", "allowed-tools",
	"disable-model-invocation", "mode", "entrypoint", "timeout", "permissions", "dangerous", "confirm",
	"author", "version", "tags", "category", "metadata"}

func knownSlot(key string) int {
	switch key {
	case "name":
		return 0
	case "description":
		return 1
	case "license":
		return 2
	case "compatibility":
		return 3
	case "allowed-tools":
		return 4
	case "disable-model-invocation":
		return 5
	case "mode":
		return 6
	case "entrypoint":
		return 7
	case "timeout":
		return 8
	case "permissions":
		return 9
	case "dangerous":
		return 10
	case "confirm":
		return 11
	case "author":
		return 12
	case "version":
		return 13
	case "tags":
		return 14
	case "category":
		return 15
	case "metadata":
		return 16
	}
	return -1
}

// topField finds a top-level field of the fast reader's fields, and its
// descendants.
func (d *Document) topField(key string) (*fastField, []fastField, bool) {
	slot := knownSlot(key)
	if slot < 0 {
		var found *fastField
		var desc []fastField
		topFields(d.fields, func(f *fastField, children []fastField) bool {
			if f.key == key {
				found, desc = f, children
				return false
			}
			return true
		})
		return found, desc, found != nil
	}
	if !d.indexed {
		d.indexed = true
		for i := 0; i < len(d.fields); i += 1 + d.fields[i].size {
			if k := knownSlot(d.fields[i].key); k >= 0 && d.known[k] == 0 {
				d.known[k] = int32(i) + 1
			}
		}
	}
	i := int(d.known[slot]) - 1
	if i < 0 {
		return nil, nil, false
	}
	f := &d.fields[i]
	return f, d.fields[i+1 : i+1+f.size], true
}

// fieldText is a top-level field's scalar text ("" for null or a
// collection) and whether the field is present.
func (d *Document) fieldText(key string) (string, bool) {
	if d.Root == nil {
		f, _, found := d.topField(key)
		if found && f.kind == yaml.ScalarNode && f.tag != "!!null" {
			return f.value, true
		}
		return "", found
	}
	n := d.Field(key)
	return scalarText(n), n != nil
}

// fieldList reads a top-level list field: a sequence's scalar items, or a
// scalar (split on commas and spaces when split is set).
func (d *Document) fieldList(key string, split bool) ([]string, bool) {
	if d.Root == nil {
		if f, desc, ok := d.topField(key); ok && f.kind == yaml.SequenceNode {
			seq := make([]string, 0, len(desc))
			eachChild(desc, func(c *fastField) {
				if c.kind == yaml.ScalarNode {
					seq = append(seq, c.value)
				}
			})
			return seq, true
		}
		t, ok := d.fieldText(key)
		if !ok || strings.TrimSpace(t) == "" {
			return nil, ok
		}
		if split {
			return splitList(t), true
		}
		return []string{t}, true
	}
	n := d.Field(key)
	if n == nil {
		return nil, false
	}
	return stringList(n, split), true
}

// metadataValue is metadata.key's scalar value, read from the fast
// reader's fields (Root nil).
func (d *Document) metadataValue(key string) (v string, ok bool) {
	if f, children, found := d.topField("metadata"); found && f.kind == yaml.MappingNode {
		eachChild(children, func(c *fastField) {
			if c.kind == yaml.ScalarNode && c.key == key {
				v, ok = c.value, true // the last one, as a map would keep
			}
		})
	}
	return v, ok
}

// metadataStrings is the metadata mapping's scalar values (nil when there
// is no metadata mapping).
// Only a document with YAML nodes has the map built (a listing, without
// them, reads single values with metadataValue).
func (d *Document) metadataStrings() map[string]string {
	n := d.Field("metadata")
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	m := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v := n.Content[i+1]; v.Kind == yaml.ScalarNode {
			m[n.Content[i].Value] = v.Value
		}
	}
	return m
}

func boolText(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on":
		return true
	}
	return false
}

func scalarText(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return ""
	}
	if n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// stringList reads a list node, or a scalar (split on commas/spaces when split is set).
func stringList(n *yaml.Node, split bool) []string {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode {
				out = append(out, c.Value)
			}
		}
		return out
	case yaml.ScalarNode:
		if n.Tag == "!!null" || strings.TrimSpace(n.Value) == "" {
			return nil
		}
		if split {
			return splitList(n.Value)
		}
		return []string{n.Value}
	}
	return nil
}

func splitList(v string) []string {
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	if len(f) == 0 {
		return nil
	}
	return f
}

// NodeValue converts a YAML node to plain Go values: mappings to
// map[string]any, sequences to []any, scalars to their source text, except
// true/false (booleans) and null (nil). budget bounds the nodes visited so
// that alias bombs cannot blow up.
func NodeValue(n *yaml.Node, budget *int) any {
	*budget--
	if *budget < 0 || n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		return NodeValue(n.Alias, budget)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = NodeValue(n.Content[i+1], budget)
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			l = append(l, NodeValue(c, budget))
		}
		return l
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil
		case "!!bool":
			switch n.Value {
			case "true", "True", "TRUE":
				return true
			case "false", "False", "FALSE":
				return false
			}
		}
		return n.Value
	}
	return nil
}

// Summarize returns the first max characters of a Markdown body with heading
// markers removed and blank lines and line breaks collapsed to single spaces.
func Summarize(body string, max int) string {
	return summarize([]byte(body), max)
}

func summarize(body []byte, max int) string {
	var b strings.Builder
	n := 0
	for len(body) > 0 && n < max {
		var line []byte
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] == '#' {
			t = bytes.TrimSpace(bytes.TrimLeft(t, "#"))
		}
		if len(t) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		end := 0
		for end < len(t) && n < max {
			_, size := utf8.DecodeRune(t[end:])
			end += size
			n++
		}
		b.Write(t[:end])
	}
	return strings.TrimSpace(b.String())
}

// EstimateTokens estimates the tokens of n bytes of text (about four bytes a token).
func EstimateTokens(n int) int {
	return (n + 3) / 4
}

// The range of a timeout, from a skill (milliseconds), the config or --timeout.
const (
	MinTimeout = time.Millisecond
	MaxTimeout = 24 * time.Hour
)

// ParseTimeoutMS reads a skill's timeout: a whole number of milliseconds
// from 1 to 86,400,000 (24 h). Anything else is an error that says so.
func ParseTimeoutMS(s string) (int64, error) {
	s = strings.TrimSpace(s)
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("timeout %s is out of range: it must be from 1 to %d milliseconds (24 h)", s, MaxTimeout.Milliseconds())
		}
		return 0, fmt.Errorf("timeout %q is not a whole number of milliseconds", s)
	}
	if ms < MinTimeout.Milliseconds() || ms > MaxTimeout.Milliseconds() {
		return 0, fmt.Errorf("timeout %s is out of range: it must be from 1 to %d milliseconds (24 h)", s, MaxTimeout.Milliseconds())
	}
	return ms, nil
}

// CheckTimeout says whether d lies between MinTimeout and MaxTimeout.
func CheckTimeout(d time.Duration) error {
	if d < MinTimeout || d > MaxTimeout {
		return fmt.Errorf("timeout %v is out of range: it must be from 1ms to 24h", d)
	}
	return nil
}
