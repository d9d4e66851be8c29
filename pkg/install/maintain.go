package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/skillctl/skillctl/pkg/skill"
	gitsource "github.com/skillctl/skillctl/pkg/source"
)

// Statuses of Verify.
const (
	VerifyOK        = "ok"
	VerifyModified  = "modified"
	VerifyMissing   = "missing"
	VerifyUntracked = "untracked"
)

// Verified is the state of one skill of a lock, or of a skill in a managed
// folder that the lock does not know.
type Verified struct {
	Name   string `json:"name"`
	Root   string `json:"root"`
	Path   string `json:"path"`
	Status string `json:"status"`
	// Changes names the edited files of a modified skill.
	Changes string `json:"changes,omitempty"`
}

// Drift reports whether a verification found a skill that is not as
// installed: modified or missing.
func Drift(vs []Verified) bool {
	for _, v := range vs {
		if v.Status == VerifyModified || v.Status == VerifyMissing {
			return true
		}
	}
	return false
}

// LockScope is the lock that outdated, update and verify read, and the
// skills folders of its scope (where untracked skills, and locks of
// version 1, are looked for).
type LockScope struct {
	LockFile string
	Roots    []string
}

// lockedSkill is one entry of a lock, with its folders as paths.
type lockedSkill struct {
	name    string
	folders []string
	e       LockEntry
}

// roots is the parent folders of the skill's folders.
func (ls lockedSkill) roots() []string {
	var out []string
	for _, f := range ls.folders {
		out = append(out, filepath.Dir(f))
	}
	return out
}

// lockedSkills reads the scope's lock and picks the entries named (all
// when names is empty). A name the lock does not have is an error naming
// the lock, with the nearest names.
func lockedSkills(sc LockScope, names []string) ([]lockedSkill, *Lock, error) {
	l, err := openScopeLock(sc.LockFile, sc.Roots)
	if err != nil {
		return nil, nil, err
	}
	all, err := l.Skills()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", sc.LockFile, err)
	}
	var out []lockedSkill
	found := map[string]bool{}
	dir := filepath.Dir(sc.LockFile)
	for _, s := range all {
		if len(names) > 0 && !matchName(names, s.Name) {
			continue
		}
		found[s.Name] = true
		ls := lockedSkill{name: s.Name, e: s.LockEntry}
		for _, f := range s.Folders {
			ls.folders = append(ls.folders, FolderPath(dir, f))
		}
		out = append(out, ls)
	}
	for _, n := range names {
		if !found[n] && !found[skill.Slug(n)] {
			return nil, nil, &skill.NotFoundError{What: "installed skill", Name: n,
				Detail:      fmt.Sprintf("%s is not recorded in %s", n, sc.LockFile),
				Suggestions: skill.Closest(n, l.Names())}
		}
	}
	return out, l.Lock, nil
}

func matchName(names []string, folder string) bool {
	for _, n := range names {
		if n == folder || skill.Slug(n) == folder {
			return true
		}
	}
	return false
}

// Verify recomputes the tree hash of every skill the locks of roots record
// (or those named) and compares it with the lock: ok, modified (naming the
// changed files), or missing. Without names it also reports the skill
// folders of the roots that no lock records (untracked), which do not
// count as drift.
func Verify(ctx context.Context, sc LockScope, names []string) ([]Verified, error) {
	locked, lock, err := lockedSkills(sc, names)
	if err != nil {
		return nil, err
	}
	var out []Verified
	for _, ls := range locked {
		for _, dir := range ls.folders {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			v := Verified{Name: ls.name, Root: filepath.Dir(dir), Path: dir, Status: VerifyOK}
			fi, err := os.Lstat(dir)
			switch {
			case errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()):
				v.Status = VerifyMissing
			case err != nil:
				return nil, err
			default:
				m, err := treeManifest(ctx, dir)
				if err != nil {
					return nil, fmt.Errorf("verify %s: %w", dir, err)
				}
				if !m.matches(ls.e.TreeSha256) {
					v.Status, v.Changes = VerifyModified, describeChanges(m, ls.e, "")
				}
			}
			out = append(out, v)
		}
	}
	if len(names) == 0 {
		dir := filepath.Dir(sc.LockFile)
		for _, root := range sc.Roots {
			ents, err := os.ReadDir(root)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			for _, de := range ents {
				name := de.Name()
				p := filepath.Join(root, name)
				if !de.IsDir() || strings.HasPrefix(name, ".") || lock.Has(FolderKey(dir, p)) {
					continue
				}
				if _, err := os.Stat(filepath.Join(p, "SKILL.md")); err == nil {
					out = append(out, Verified{Name: name, Root: root, Path: p, Status: VerifyUntracked})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

// Statuses of Outdated.
const (
	OutdatedCurrent = "up-to-date"
	OutdatedNewer   = "outdated"
	OutdatedPinned  = "pinned"
	// OutdatedUnchecked: a source that has no remote to ask (a folder, an
	// archive file).
	OutdatedUnchecked = "unchecked"
	OutdatedError     = "error"
)

// Outdated is what the remote of one installed skill says now.
type Outdated struct {
	Name string `json:"name"`
	// Folders are where the skill is installed.
	Folders []string `json:"folders"`
	Source  string   `json:"source"`
	Ref     string   `json:"ref,omitempty"`
	// Current is the commit installed; Latest the one Ref points at now.
	Current string `json:"current,omitempty"`
	Latest  string `json:"latest,omitempty"`
	Status  string `json:"status"`
	Error   string `json:"error,omitempty"`
	entry   lockedSkill
}

// CheckOutdated asks the remote of every git source of the locks of roots
// (or of the skills named) what its ref points at now, with one
// `git ls-remote` per repository and ref, run in parallel. A skill pinned
// to a commit SHA or a tag is `pinned`. A remote that cannot be asked
// gives that skill the status `error` (with the reason), not a failure of
// the whole check.
func CheckOutdated(ctx context.Context, sc LockScope, names []string, o gitsource.FetchOptions) ([]Outdated, error) {
	locked, _, err := lockedSkills(sc, names)
	if err != nil {
		return nil, err
	}
	type query struct{ url, ref string }
	type answer struct {
		r   *gitsource.Remote
		err error
	}
	answers := map[query]*answer{}
	var out []Outdated
	indexes := map[string]map[string]string{} // well-known index → digests by name
	downloads := map[string]*answer{}         // archive URL → its digest now
	for _, ls := range locked {
		s := ls.e.Source
		od := Outdated{Name: ls.name, Folders: ls.folders, Source: s.Location, Ref: s.Ref, Current: s.Commit, entry: ls}
		switch {
		case s.Kind == KindWellKnown:
			od.Current = s.SHA256
			indexes[s.Location] = nil
		case s.Kind == KindURL && s.SHA256 != "":
			od.Current = s.SHA256
			downloads[s.Location] = &answer{}
		case s.Kind != KindGit || s.URL == "":
			od.Status = OutdatedUnchecked
		case gitsource.IsSHA(s.Ref):
			od.Status, od.Latest = OutdatedPinned, s.Commit
		default:
			answers[query{s.URL, s.Ref}] = nil
		}
		out = append(out, od)
	}
	// Each query gets its answer slot before the queries start, so the
	// goroutines write only their own.
	for q := range answers {
		answers[q] = &answer{}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for q, a := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			a.r, a.err = gitsource.Resolve(ctx, q.url, q.ref, o)
		}()
	}
	fetcher := New(Options{})
	for loc, a := range downloads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			file, sum, _, err := fetcher.fetchURL(ctx, loc)
			if file != "" {
				os.Remove(file)
			}
			a.r, a.err = &gitsource.Remote{Commit: sum}, err
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	idxErr := map[string]error{}
	for loc := range indexes {
		indexes[loc], idxErr[loc] = fetcher.IndexDigests(ctx, loc)
	}
	for i := range out {
		od := &out[i]
		if od.Status != "" {
			continue
		}
		if src := od.entry.e.Source; src.Kind == KindWellKnown {
			d, ok := indexes[src.Location][od.Name]
			switch {
			case idxErr[src.Location] != nil:
				od.Status, od.Error = OutdatedError, idxErr[src.Location].Error()
			case !ok:
				od.Status, od.Error = OutdatedError, "the index no longer lists "+od.Name
			case d == od.Current:
				od.Status, od.Latest = OutdatedCurrent, d
			default:
				od.Status, od.Latest = OutdatedNewer, d
			}
			continue
		}
		a := answers[query{od.entry.e.Source.URL, od.Ref}]
		if src := od.entry.e.Source; src.Kind == KindURL {
			a = downloads[src.Location]
		}
		switch {
		case a.err != nil:
			od.Status, od.Error = OutdatedError, a.err.Error()
		case a.r.Tag:
			od.Status, od.Latest = OutdatedPinned, a.r.Commit
		case a.r.Commit == od.Current:
			od.Status, od.Latest = OutdatedCurrent, a.r.Commit
		default:
			od.Status, od.Latest = OutdatedNewer, a.r.Commit
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Folders[0] < out[j].Folders[0]
	})
	return out, nil
}

// UpdatePlan is one install that brings outdated skills of one source up
// to date in the folders they are installed in: the source as recorded,
// at the ref asked for.
type UpdatePlan struct {
	Roots  []string
	Source string
	Ref    string
	Subdir string
	Skills []string
}

// PlanUpdates groups the outdated skills of os by source and folders, so
// that each source is fetched once for them.
func PlanUpdates(os []Outdated) []UpdatePlan {
	idx := map[[4]string]int{}
	var plans []UpdatePlan
	for _, o := range os {
		if o.Status != OutdatedNewer {
			continue
		}
		s := o.entry.e.Source
		roots := o.entry.roots()
		k := [4]string{strings.Join(roots, "\x00"), s.Location, s.Ref, s.Subdir}
		i, ok := idx[k]
		if !ok {
			i = len(plans)
			idx[k] = i
			plans = append(plans, UpdatePlan{Roots: roots, Source: s.Location, Ref: s.Ref, Subdir: s.Subdir})
		}
		plans[i].Skills = append(plans[i].Skills, o.Name)
	}
	return plans
}
