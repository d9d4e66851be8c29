package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillctl/skillctl/internal/atomicfs"
	"github.com/skillctl/skillctl/pkg/pack"
	"github.com/skillctl/skillctl/pkg/skill"
)

// WellKnownSchema is the $schema of the discovery index (Agent Skills
// Discovery via Well-Known URIs, v0.2.0).
const WellKnownSchema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// WellKnownDir is where the site's skills live, relative to its root.
const WellKnownDir = ".well-known/agent-skills"

// Artifact types of a well-known index entry.
const (
	TypeSkillMD = "skill-md"
	TypeArchive = "archive"
)

// WellKnownSkill is one entry of index.json.
type WellKnownSkill struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	// URL is the artifact's absolute path on the site.
	URL string `json:"url"`
	// Digest is "sha256:" and the hex SHA-256 of the artifact's bytes.
	Digest string `json:"digest"`
}

// WellKnownIndex is index.json.
type WellKnownIndex struct {
	Schema string           `json:"$schema"`
	Skills []WellKnownSkill `json:"skills"`
}

// WriteWellKnown writes a static discovery site for items under root:
// root/.well-known/agent-skills/index.json, a <name>/SKILL.md for each skill
// that is only a SKILL.md, and a <name>.zip archive (pack's reproducible
// writer) for each skill with other files. The same skills give the same
// bytes. The agent-skills folder is assembled beside its place and swapped in
// whole, so files of skills no longer indexed disappear, and a failure leaves
// the previous site as it was.
func WriteWellKnown(ctx context.Context, root string, items []Item) (*WellKnownIndex, error) {
	idx := &WellKnownIndex{Schema: WellKnownSchema, Skills: []WellKnownSkill{}}
	seen := map[string]string{}
	for _, it := range items {
		s := it.Skill
		if err := skill.CheckName(s.Name); err != nil {
			return nil, fmt.Errorf("%s (%s) cannot be published: %w; fix its name or disable it in the config", s.ID, s.Dir, err)
		}
		if other, dup := seen[s.Name]; dup {
			return nil, fmt.Errorf("two skills are named %s (%s and %s); a site can hold one: disable one in the config", s.Name, other, s.ID)
		}
		seen[s.Name] = s.ID
	}

	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	wk := filepath.Join(root, ".well-known")
	if err := os.MkdirAll(wk, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", wk, err)
	}
	target := filepath.Join(root, filepath.FromSlash(WellKnownDir))
	if fi, err := os.Lstat(target); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("%s exists and is not a folder; move it away first", target)
	}
	stage, err := os.MkdirTemp(wk, ".agent-skills.tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write the site in %s: %w", wk, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(stage)
		}
	}()

	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		entry, err := writeArtifact(ctx, stage, it)
		if err != nil {
			return nil, err
		}
		idx.Skills = append(idx.Skills, entry)
	}
	data, err := marshal(idx)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(stage, "index.json"), data, 0o644); err != nil {
		return nil, err
	}
	if err := fixModes(stage); err != nil {
		return nil, err
	}
	if err := atomicfs.ReplaceDir(stage, target); err != nil {
		return nil, err
	}
	done = true
	return idx, nil
}

// writeArtifact writes one skill's artifact into dir and describes it.
func writeArtifact(ctx context.Context, dir string, it Item) (WellKnownSkill, error) {
	s := it.Skill
	e := WellKnownSkill{Name: s.Name, Description: strings.TrimSpace(s.Description)}
	files, err := pack.List(s.Dir, nil)
	if err != nil {
		return e, fmt.Errorf("publish %s: %w", s.ID, err)
	}
	var regular []pack.File
	for _, f := range files {
		if !strings.HasSuffix(f.Path, "/") {
			regular = append(regular, f)
		}
	}
	seg := url.PathEscape(s.Name)
	if len(regular) == 1 && (regular[0].Path == "SKILL.md" || regular[0].Path == "skill.md") {
		data, err := os.ReadFile(filepath.Join(s.Dir, regular[0].Path))
		if err != nil {
			return e, fmt.Errorf("publish %s: %w", s.ID, err)
		}
		if err := os.Mkdir(filepath.Join(dir, s.Name), 0o755); err != nil {
			return e, err
		}
		if err := os.WriteFile(filepath.Join(dir, s.Name, "SKILL.md"), data, 0o644); err != nil {
			return e, err
		}
		sum := sha256.Sum256(data)
		e.Type, e.URL, e.Digest = TypeSkillMD, "/"+WellKnownDir+"/"+seg+"/SKILL.md", "sha256:"+hex.EncodeToString(sum[:])
		return e, nil
	}
	f, err := os.OpenFile(filepath.Join(dir, s.Name+".zip"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return e, err
	}
	sum, err := pack.Write(ctx, f, s.Dir, pack.Options{Format: pack.FormatZip, Name: s.Name})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return e, ctx.Err()
		}
		return e, fmt.Errorf("publish %s: %w", s.ID, err)
	}
	e.Type, e.URL, e.Digest = TypeArchive, "/"+WellKnownDir+"/"+seg+".zip", "sha256:"+sum
	return e, nil
}

// fixModes gives the site's folders 0755 and its files 0644, whatever the umask.
func fixModes(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	})
}
