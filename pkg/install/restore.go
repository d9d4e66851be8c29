package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillctl/skillctl/pkg/skill"
)

// RestoreOptions say what a restore reads.
type RestoreOptions struct {
	// LockFile, when set, is the file to restore from, into the target
	// roots: a skillctl lock (its folders are not used) or a
	// skills-lock.json of vercel-labs/skills (version 1), whose skills
	// are installed from their sources and recorded. Else the operation's
	// lock (Options.LockFile) is restored into the folders it records.
	LockFile string
	// Frozen fails when the restore would change the lock (CI).
	Frozen bool
}

// ErrNothingToRestore: the lock records no skill.
var ErrNothingToRestore = errors.New("nothing to restore")

// ErrFrozen: --frozen, and the restore would change the lock.
var ErrFrozen = errors.New("the lock would change")

// restoreJob is one install of a restore: the skills of one root (or of
// the target roots) from one source at one commit or digest, each
// expected to reproduce its entry — or, imported, installed as a fresh
// install would.
type restoreJob struct {
	roots  []string
	src    SourceRef
	expect map[string]LockEntry
	// imported are the names of an import (no entry to reproduce).
	imported []string
}

func (j *restoreJob) names() []string {
	n := append([]string(nil), j.imported...)
	for k := range j.expect {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Restore installs every skill the lock records, each from its source at
// the recorded commit (git) or digest (archives, downloads, well-known
// entries), checking that its files have the recorded treeSha256, and
// keeps each entry as it was: a restore that changes nothing leaves the
// lock byte-identical. Everything is fetched and checked before anything
// is installed, so a source that changed (a mismatch) or is gone stops the
// restore with nothing changed. A skill already installed with the
// recorded files is unchanged; one edited in place is refused unless Force.
func (in *Installer) Restore(ctx context.Context, ro RestoreOptions) (*Result, error) {
	if len(in.Roots) == 0 {
		return nil, errors.New("no target folder")
	}
	lockFile := in.LockFile
	if lockFile == "" {
		lockFile = lockOf("", uniqueRoots(in.Roots)[0])
	}
	cur, err := openScopeLock(lockFile, append(append([]string(nil), in.LegacyRoots...), in.Roots...))
	if err != nil {
		return nil, err
	}
	var jobs []*restoreJob
	from := lockFile
	frozen := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s (--frozen); run the same command without --frozen and commit %s", ErrFrozen, fmt.Sprintf(format, a...), lockFile)
	}
	if ro.LockFile == "" {
		if ro.Frozen && (cur.Read == 1 || len(cur.legacy) > 0) {
			return nil, frozen("the lock would be rewritten as version %d", lockVersion)
		}
		jobs, err = jobsOfLock(cur.Lock, filepath.Dir(lockFile), nil)
	} else {
		from = ro.LockFile
		var l *Lock
		var imports []vercelSkill
		l, imports, err = readRestoreFile(ro.LockFile)
		if err != nil {
			return nil, err
		}
		if l != nil {
			jobs, err = jobsOfLock(l, "", uniqueRoots(in.Roots))
		} else {
			jobs, err = in.jobsOfImport(cur.Lock, lockFile, ro.LockFile, imports, ro.Frozen)
		}
		if err == nil && ro.Frozen {
			err = in.checkFrozen(cur, jobs, frozen)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w: %s records no skill; give a SOURCE to install", ErrNothingToRestore, from)
	}
	for _, j := range jobs {
		if j.src.Kind == KindGit && j.src.Commit == "" && len(j.imported) == 0 {
			return nil, fmt.Errorf("restore %s: the lock records no commit for %s; nothing was changed", strings.Join(j.names(), ", "), j.src.Location)
		}
	}
	// One install of every job: everything is fetched and checked
	// before anything changes, and the lock is written once.
	o := in.Options
	o.Jobs = nil
	for _, j := range jobs {
		o.Jobs = append(o.Jobs, j.job())
	}
	sub := New(o)
	sub.fault = in.fault
	res, err := sub.Run(ctx)
	if err != nil {
		var names []string
		for _, j := range jobs {
			names = append(names, j.names()...)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("restore %s: %w; nothing was changed", strings.Join(slices.Compact(names), ", "), err)
	}
	return res, nil
}

// jobsOfLock groups the entries of l by source: into the folders they
// record (relative to dir), or, with roots, into those.
func jobsOfLock(l *Lock, dir string, roots []string) ([]*restoreJob, error) {
	skills, err := l.Skills()
	if err != nil {
		return nil, err
	}
	var jobs []*restoreJob
	idx := map[string]*restoreJob{}
	add := func(rs []string, folder string, e LockEntry) {
		s := e.Source
		key := strings.Join(rs, "\x00") + "\x01" + strings.Join([]string{s.Kind, s.Location, s.URL, s.Commit, s.Subdir, s.SHA256}, "\x00")
		j := idx[key]
		if j == nil {
			j = &restoreJob{roots: rs, src: s, expect: map[string]LockEntry{}}
			idx[key] = j
			jobs = append(jobs, j)
		}
		j.expect[folder] = e
	}
	for _, s := range skills {
		if roots != nil {
			add(roots, s.Name, s.LockEntry)
			continue
		}
		// The folders of one entry that share a name are one install
		// into their roots (claude and codex: the source is fetched once).
		byName := map[string][]string{}
		var names []string
		for _, f := range s.Folders {
			p := FolderPath(dir, f)
			n := filepath.Base(p)
			if byName[n] == nil {
				names = append(names, n)
			}
			byName[n] = append(byName[n], filepath.Dir(p))
		}
		for _, n := range names {
			add(uniqueRoots(byName[n]), n, s.LockEntry)
		}
	}
	return jobs, nil
}

// checkFrozen fails when installing jobs would change the lock cur: an
// entry it does not record as it is.
func (in *Installer) checkFrozen(cur *scopeLock, jobs []*restoreJob, frozen func(string, ...any) error) error {
	if cur.Read == 1 || len(cur.legacy) > 0 {
		return frozen("the lock would be rewritten as version %d", lockVersion)
	}
	dir := filepath.Dir(cur.path)
	for _, j := range jobs {
		for _, root := range j.roots {
			for name, e := range j.expect {
				if have, ok := cur.Get(FolderKey(dir, filepath.Join(root, name))); !ok || have != e {
					return frozen("%s would be recorded for %s", name, root)
				}
			}
		}
	}
	return nil
}

// job is the install of j: a git source at the recorded commit, an
// archive or download checked against its digest, the entries expected;
// an import as a fresh install would.
func (j *restoreJob) job() Job {
	o := Job{Sources: []string{j.src.Location}, Roots: j.roots, Skills: j.names(), Expect: j.expect}
	if len(j.imported) > 0 {
		o.Expect = nil
		o.Ref, o.Subdir = j.src.Ref, j.src.Subdir
		return o
	}
	switch j.src.Kind {
	case KindGit:
		o.AtCommit, o.Subdir = j.src.Commit, j.src.Subdir
	case KindArchive, KindURL:
		o.SHA256 = j.src.SHA256
	}
	return o
}

// vercelSkill is one skill of a skills-lock.json of vercel-labs/skills.
type vercelSkill struct {
	Name       string
	Source     string `json:"source"`
	SourceType string `json:"sourceType"`
	SourceURL  string `json:"sourceUrl"`
	Ref        string `json:"ref"`
}

// readRestoreFile reads --lockfile FILE: a skillctl lock (any version), or
// a skills-lock.json of vercel-labs/skills (version 1), whose skills are
// returned as imports.
func readRestoreFile(p string) (*Lock, []vercelSkill, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil, skill.Mark(fmt.Errorf("%s: no such lock file", p), skill.ErrNotFound)
		}
		return nil, nil, err
	}
	var head struct {
		Version *int                       `json:"version"`
		Skills  map[string]json.RawMessage `json:"skills"`
	}
	if json.Unmarshal(data, &head) != nil || head.Version == nil {
		l, err := parseLock(p, data)
		return l, nil, err
	}
	if *head.Version != 1 {
		return nil, nil, fmt.Errorf("%s: a skills-lock.json of version %d; skillctl imports version 1", p, *head.Version)
	}
	var out []vercelSkill
	for name, raw := range head.Skills {
		var s vercelSkill
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, fmt.Errorf("%s: the entry of %s is not valid (%v)", p, name, err)
		}
		s.Name = name
		if s.Source == "" {
			return nil, nil, fmt.Errorf("%s: %s has no source; add one or remove the entry", p, name)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return nil, out, nil
}

// vercelSource is the SOURCE skillctl installs an imported skill from.
func vercelSource(lockFile string, s vercelSkill) (string, error) {
	switch s.SourceType {
	case "github", "":
		return s.Source, nil // owner/repo (the GitHub shorthand) or a URL
	case "gitlab":
		if strings.Contains(s.Source, "://") {
			return s.Source, nil
		}
		return "https://gitlab.com/" + strings.TrimSuffix(s.Source, ".git") + ".git", nil
	case "git", "url", "well-known", "wellknown":
		if s.SourceURL != "" {
			return s.SourceURL, nil
		}
		return s.Source, nil
	case "local":
		if filepath.IsAbs(s.Source) {
			return s.Source, nil
		}
		return filepath.Join(filepath.Dir(lockFile), filepath.FromSlash(s.Source)), nil
	}
	return "", fmt.Errorf("%s: %s has the source type %q, which skillctl does not know (github, gitlab, git, local, well-known)", lockFile, s.Name, s.SourceType)
}

// jobsOfImport turns the skills of a skills-lock.json into installs, one
// per source and ref, into the target roots. Frozen, each must be
// recorded already from the same source: then the recorded entries are
// restored instead, so that CI reproduces exactly what was committed.
func (in *Installer) jobsOfImport(cur *Lock, lockFile, importFile string, imports []vercelSkill, frozen bool) ([]*restoreJob, error) {
	var jobs []*restoreJob
	idx := map[string]*restoreJob{}
	roots := uniqueRoots(in.Roots)
	dir := filepath.Dir(lockFile)
	for _, s := range imports {
		src, err := vercelSource(importFile, s)
		if err != nil {
			return nil, err
		}
		if frozen {
			e, ok := cur.Get(FolderKey(dir, filepath.Join(roots[0], skill.Slug(s.Name))))
			if !ok || e.Source.Location != src {
				return nil, fmt.Errorf("%w: %s from %s would be recorded in %s (--frozen)", ErrFrozen, s.Name, src, lockFile)
			}
			key := "e\x00" + e.Source.Location + "\x00" + e.Source.Commit + "\x00" + e.Source.SHA256
			j := idx[key]
			if j == nil {
				j = &restoreJob{roots: roots, src: e.Source, expect: map[string]LockEntry{}}
				idx[key] = j
				jobs = append(jobs, j)
			}
			j.expect[skill.Slug(s.Name)] = e
			continue
		}
		key := "i\x00" + src + "\x00" + s.Ref
		j := idx[key]
		if j == nil {
			j = &restoreJob{roots: roots, src: SourceRef{Location: src, Ref: s.Ref}}
			idx[key] = j
			jobs = append(jobs, j)
		}
		j.imported = append(j.imported, s.Name)
	}
	return jobs, nil
}
