// Package scaffold creates new skills that are valid from their first
// minute: a SKILL.md that passes validation under every profile, with
// skillctl's execution fields kept under metadata, and for sandbox skills an
// executable entry point that `skillctl run` can start at once.
package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/skillctl/skillctl/internal/atomicfs"
	"github.com/skillctl/skillctl/pkg/skill"
)

// Limits of the Agent Skills specification.
const (
	MaxNameLength        = skill.MaxNameLength
	MaxDescriptionLength = 1024
)

// Resource folders a new skill may start with.
const (
	ResourceScripts    = "scripts"
	ResourceReferences = "references"
	ResourceAssets     = "assets"
)

// Resources lists the resource folders init can create.
var Resources = []string{ResourceScripts, ResourceReferences, ResourceAssets}

// Entrypoint is the script a new sandbox skill runs.
const Entrypoint = "scripts/run.sh"

// InitialVersion is the version a new skill starts at.
const InitialVersion = "0.1.0"

// ErrExists is returned when the skill folder exists and is not empty.
var ErrExists = errors.New("already exists")

// InputError is an option Create cannot use (mode, description, resources).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, a ...any) error { return &InputError{Msg: fmt.Sprintf(format, a...)} }

// Options describe the skill to create.
type Options struct {
	// Name of the skill, and of its folder.
	Name string
	// Parent is the folder the skill folder is created in (created when missing).
	Parent string
	// Description of what the skill does and when to use it; a placeholder
	// sentence when empty.
	Description string
	// Mode is sandbox (the default) or direct.
	Mode string
	// Resources are folders to create, each with a short README.
	Resources []string
	// License is the license field; left out when empty.
	License string
}

// Result is what Create made.
type Result struct {
	Name string `json:"name"`
	// Path is the new skill folder.
	Path string `json:"path"`
	Mode string `json:"mode"`
	// Files are the files written, slash-separated and relative to Path, sorted.
	Files []string `json:"files"`
}

// check validates the options and fills in defaults.
func (o *Options) check() error {
	if err := skill.CheckName(o.Name); err != nil {
		return err
	}
	switch o.Mode {
	case "":
		o.Mode = skill.ModeSandbox
	case skill.ModeSandbox, skill.ModeDirect:
	default:
		return inputErrorf("mode must be sandbox or direct, not %q", o.Mode)
	}
	o.Description = strings.TrimSpace(o.Description)
	if o.Description == "" {
		o.Description = DefaultDescription(o.Name)
	}
	if n := utf8.RuneCountInString(o.Description); n > MaxDescriptionLength {
		return inputErrorf("the description is %d characters long; the limit is %d", n, MaxDescriptionLength)
	}
	if !utf8.ValidString(o.Description) || strings.ContainsRune(o.Description, 0) {
		return inputErrorf("the description must be UTF-8 text without NUL bytes")
	}
	o.License = strings.TrimSpace(o.License)
	var res []string
	seen := map[string]bool{}
	for _, r := range o.Resources {
		r = strings.TrimSuffix(strings.TrimSpace(r), "/")
		if r == "" || seen[r] {
			continue
		}
		if !slices.Contains(Resources, r) {
			return inputErrorf("unknown resource folder %q: choose from %s", r, strings.Join(Resources, ", "))
		}
		seen[r] = true
		res = append(res, r)
	}
	sort.Strings(res)
	o.Resources = res
	return nil
}

// DefaultDescription is the placeholder description of a new skill. It
// says it is one (validate's description-placeholder rule), so that
// 'validate --strict' fails until it is replaced.
func DefaultDescription(name string) string {
	return "TODO: describe what " + name + " does and when an agent should use it."
}

// Files returns the files of the new skill: slash-separated paths relative
// to the skill folder, with their content and mode.
func Files(opts Options) (map[string]File, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	return files(opts)
}

// File is one file of a new skill.
type File struct {
	Content []byte
	Mode    fs.FileMode
}

func files(o Options) (map[string]File, error) {
	md, err := skillMD(o)
	if err != nil {
		return nil, err
	}
	out := map[string]File{"SKILL.md": {Content: md, Mode: 0o644}}
	if o.Mode == skill.ModeSandbox {
		out[Entrypoint] = File{Content: []byte(runScript(o.Name)), Mode: 0o755}
	}
	for _, r := range o.Resources {
		out[r+"/README.md"] = File{Content: []byte(resourceReadme(o.Name, r)), Mode: 0o644}
	}
	return out, nil
}

// Create makes the skill folder Parent/Name with its files. The folder is
// assembled beside its final place and renamed into it, so a failure leaves
// nothing half made. An existing empty folder is replaced; an existing
// non-empty one is refused with ErrExists.
func Create(opts Options) (*Result, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	parent, err := filepath.Abs(opts.Parent)
	if err != nil {
		return nil, err
	}
	target := filepath.Join(parent, opts.Name)
	if fi, err := os.Lstat(target); err == nil {
		if !fi.IsDir() {
			return nil, fmt.Errorf("%s %w and is not a folder", target, ErrExists)
		}
		ents, err := os.ReadDir(target)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", target, err)
		}
		if len(ents) > 0 {
			return nil, fmt.Errorf("%s %w and is not empty", target, ErrExists)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot use %s: %w", target, err)
	}
	all, err := files(opts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", parent, err)
	}
	stage, err := os.MkdirTemp(parent, "."+opts.Name+".init-*")
	if err != nil {
		return nil, fmt.Errorf("create the skill in %s: %w", parent, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(stage)
		}
	}()
	names := make([]string, 0, len(all))
	for rel, f := range all {
		names = append(names, rel)
		p := filepath.Join(stage, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, f.Content, f.Mode); err != nil {
			return nil, err
		}
		// The umask must not take the executable bit away from the entry point.
		if err := os.Chmod(p, f.Mode); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, err
	}
	// An empty folder in the way is swapped out whole (and put back if the
	// swap fails); otherwise the stage is renamed into place.
	if err := atomicfs.ReplaceDir(stage, target); err != nil {
		return nil, fmt.Errorf("create %s: %w", target, err)
	}
	done = true
	sort.Strings(names)
	return &Result{Name: opts.Name, Path: target, Mode: opts.Mode, Files: names}, nil
}

// skillMD writes SKILL.md: the standard fields at the top level and
// skillctl's execution fields as strings under metadata, so that the file
// passes validation under the spec profile too.
func skillMD(o Options) ([]byte, error) {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	quoted := func(v string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: yaml.DoubleQuotedStyle}
	}
	fm := &yaml.Node{Kind: yaml.MappingNode}
	add := func(m *yaml.Node, k string, v *yaml.Node) { m.Content = append(m.Content, str(k), v) }
	add(fm, "name", str(o.Name))
	add(fm, "description", str(o.Description))
	if o.License != "" {
		add(fm, "license", str(o.License))
	}
	meta := &yaml.Node{Kind: yaml.MappingNode}
	add(meta, "mode", str(o.Mode))
	if o.Mode == skill.ModeSandbox {
		add(meta, "entrypoint", str(Entrypoint))
	}
	add(meta, "version", quoted(InitialVersion))
	add(fm, "metadata", meta)

	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		return nil, fmt.Errorf("write the frontmatter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	b.WriteString("---\n\n")
	b.WriteString(body(o))
	return b.Bytes(), nil
}

func body(o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", o.Name)
	if o.Mode == skill.ModeSandbox {
		fmt.Fprintf(&b, `## What it does

Say here, for the agent, what this skill is for and what it produces.

## How to run it

Run %[2]s from the skill folder. It reads its input as JSON on standard
input and prints its result. Try it with:

    skillctl run %[1]s --input name=world

Replace the body of %[2]s with the skill's real work.
`, o.Name, "`"+Entrypoint+"`")
	} else {
		fmt.Fprintf(&b, `## Instructions

Write here the steps the agent follows when it uses this skill.

In direct mode `+"`skillctl run %[1]s`"+` prints these instructions for the agent.
Placeholders such as \{{input.topic}} are replaced by input values (given with
--input topic=...) and \{{system.date}} by today's date; the backslash in front
of them here keeps them as they are.
`, o.Name)
	}
	var lines []string
	for _, r := range o.Resources {
		switch {
		case r == ResourceScripts && o.Mode == skill.ModeSandbox:
		case r == ResourceScripts:
			lines = append(lines, "- `scripts/`: scripts the agent runs from the skill folder.")
		case r == ResourceReferences:
			lines = append(lines, "- `references/`: material to read only when a step above says so.")
		case r == ResourceAssets:
			lines = append(lines, "- `assets/`: templates and files the skill's output is built from.")
		}
	}
	if len(lines) > 0 {
		b.WriteString("\n## Files\n\n" + strings.Join(lines, "\n") + "\n")
	}
	return b.String()
}

func runScript(name string) string {
	return `#!/bin/sh
# Entry point of the ` + name + ` skill. ` + "`skillctl run " + name + "`" + ` starts it with
# the input as JSON on standard input (also in the file $SKILL_INPUT_FILE);
# what it prints is the result. Replace the lines below with the real work.
set -eu
input=$(cat)
printf '%s\n' "$input"
`
}

func resourceReadme(name, folder string) string {
	switch folder {
	case ResourceScripts:
		return "# scripts\n\nScripts of the " + name + " skill. The agent runs them from the skill folder\nwhen SKILL.md tells it to. Start each with a #! line and make it executable.\n"
	case ResourceReferences:
		return "# references\n\nReference material for the " + name + " skill: longer documents the agent\nreads only when SKILL.md points to them. Link each one from SKILL.md.\n"
	default:
		return "# assets\n\nTemplates, examples and other files the " + name + " skill uses to build\nits output. They are not loaded into the agent's context.\n"
	}
}
