package install

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/skill"
)

// KindWellKnown is a skill installed from a .well-known/agent-skills index.
const KindWellKnown = "wellknown"

// wellKnownPath is where a site publishes its skills (Agent Skills
// Discovery via Well-Known URIs).
const wellKnownPath = "/.well-known/agent-skills/index.json"

// maxIndexBytes caps index.json.
const maxIndexBytes = 4 << 20

// wellKnownURL returns the index URL a SOURCE URL names: the site's root
// (https://example.com) or the index itself; ok is false for any other URL.
func wellKnownURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", false
	}
	switch p := strings.TrimSuffix(u.Path, "/"); {
	case p == "":
		u.Path = wellKnownPath
	case strings.HasSuffix(p, wellKnownPath), p+"/index.json" == wellKnownPath:
		if !strings.HasSuffix(p, "index.json") {
			u.Path = p + "/index.json"
		}
	default:
		return "", false
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String(), true
}

type wellKnownEntry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Digest      string `json:"digest"`
}

// wellKnown fetches a site's index, then each chosen entry (every entry,
// or those --skill names): a SKILL.md, or an archive unpacked with every
// check install makes. Each artifact's sha256 must be its entry's digest,
// or nothing is installed. The skills land in one temp folder, installed
// from as a folder.
func (in *Installer) wellKnown(ctx context.Context, indexURL string) (*source, error) {
	entries, loc, err := in.fetchIndex(ctx, indexURL)
	if err != nil {
		return nil, err
	}
	chosen := entries
	if len(in.Skills) > 0 {
		chosen = nil
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
			for _, want := range in.Skills {
				if ok, _ := path.Match(want, e.Name); ok || want == e.Name || skill.Slug(want) == e.Name {
					chosen = append(chosen, e)
					break
				}
			}
		}
		if len(chosen) == 0 {
			return nil, skill.Mark(fmt.Errorf("%s: no skill named %s in the index (it lists %s)", loc,
				strings.Join(in.Skills, ", "), strings.Join(names, ", ")), skill.ErrNotFound)
		}
	}
	base, _ := url.Parse(indexURL)
	tmp, err := os.MkdirTemp("", "skillctl-wellknown-")
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	digests := map[string]string{}
	for i, e := range chosen {
		if err := checkName(e.Name); err != nil {
			return nil, fmt.Errorf("%s: entry %d: %w", loc, i+1, err)
		}
		ref, err := url.Parse(e.URL)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: the url %q is not valid", loc, e.Name, e.URL)
		}
		art := base.ResolveReference(ref)
		if art.Scheme != "https" && art.Scheme != "http" || (base.Scheme == "https" && art.Scheme != "https") {
			return nil, fmt.Errorf("%s: %s: the artifact %s is not served over %s", loc, e.Name, art, base.Scheme)
		}
		want, found := strings.CutPrefix(strings.ToLower(e.Digest), "sha256:")
		if !found || len(want) != 64 {
			return nil, fmt.Errorf("%s: %s: the digest %q is not sha256:<64 hex digits>; nothing was installed", loc, e.Name, e.Digest)
		}
		afile, sum, aloc, err := in.fetchURL(ctx, art.String())
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", loc, e.Name, err)
		}
		err = func() error {
			defer os.Remove(afile)
			if sum != want {
				return fmt.Errorf("%w: %s: %s has sha256:%s, the index says sha256:%s; nothing was installed", ErrChecksum, e.Name, aloc, sum, want)
			}
			switch e.Type {
			case "skill-md":
				dir := filepath.Join(tmp, e.Name)
				if err := os.Mkdir(dir, 0o755); err != nil {
					return fmt.Errorf("%s: the index lists %s twice", loc, e.Name)
				}
				b, err := os.ReadFile(afile)
				if err != nil {
					return err
				}
				digests[e.Name] = want
				return os.WriteFile(filepath.Join(dir, "SKILL.md"), b, 0o644)
			case "archive":
				dir := filepath.Join(tmp, fmt.Sprintf(".archive-%d", i))
				if err := os.Mkdir(dir, 0o755); err != nil {
					return err
				}
				if _, err := stageArchive(ctx, afile, dir, archive.Options{Limits: in.Limits}, nil); err != nil {
					return fmt.Errorf("%s: %s: %w; nothing was installed", loc, e.Name, err)
				}
				// the archive's folders become the skills of the source
				ents, err := os.ReadDir(dir)
				if err != nil {
					return err
				}
				for _, de := range ents {
					if err := os.Rename(filepath.Join(dir, de.Name()), filepath.Join(tmp, de.Name())); err != nil {
						return fmt.Errorf("%s: %s: the archive's folder %s clashes with another entry", loc, e.Name, de.Name())
					}
					digests[de.Name()] = want
				}
				return os.Remove(dir)
			}
			return fmt.Errorf("%s: %s: unknown artifact type %q (skill-md or archive)", loc, e.Name, e.Type)
		}()
		if err != nil {
			return nil, err
		}
	}
	ok = true
	return &source{arg: loc, kind: KindWellKnown, path: tmp, location: loc, tempDir: tmp, digests: digests}, nil
}

// fetchIndex downloads a well-known index.json (at most maxIndexBytes)
// and returns its entries and the URL without credentials.
func (in *Installer) fetchIndex(ctx context.Context, indexURL string) ([]wellKnownEntry, string, error) {
	file, _, loc, err := in.fetchURL(ctx, indexURL)
	if err != nil {
		return nil, "", err
	}
	defer os.Remove(file)
	f, err := os.Open(file)
	if err != nil {
		return nil, "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIndexBytes+1))
	f.Close()
	if err != nil {
		return nil, "", err
	}
	if len(data) > maxIndexBytes {
		return nil, "", fmt.Errorf("%s: the index is larger than %d bytes", loc, maxIndexBytes)
	}
	var idx struct {
		Skills []wellKnownEntry `json:"skills"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, "", fmt.Errorf("%s: not a skills index (%v)", loc, err)
	}
	if len(idx.Skills) == 0 {
		return nil, "", fmt.Errorf("%s: the index lists no skill", loc)
	}
	return idx.Skills, loc, nil
}

// IndexDigests fetches a well-known index and returns the digest of each
// skill it lists, by name (outdated compares them with the lock).
func (in *Installer) IndexDigests(ctx context.Context, indexURL string) (map[string]string, error) {
	entries, _, err := in.fetchIndex(ctx, indexURL)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range entries {
		out[e.Name] = strings.TrimPrefix(strings.ToLower(e.Digest), "sha256:")
	}
	return out, nil
}
