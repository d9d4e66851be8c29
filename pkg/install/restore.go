package install

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// RestoreOptions say what a restore reads besides the target roots' locks.
type RestoreOptions struct {
	// LockFile, when set, is the lock to restore from (into every root);
	// else each root's own lock.
	LockFile string
	// Frozen fails when the restore would change a lock (CI).
	Frozen bool
}

// ErrNothingToRestore: the locks record no skill.
var ErrNothingToRestore = errors.New("nothing to restore")

// ErrFrozen: --frozen, and the restore would change a lock.
var ErrFrozen = errors.New("the lock would change")

// restoreGroup is the skills of one root that come from one source at one
// commit or digest: one install.
type restoreGroup struct {
	root   string
	src    SourceRef
	expect map[string]LockEntry
}

func (g *restoreGroup) names() []string {
	var n []string
	for k := range g.expect {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Restore installs every skill the locks record, each from its source at
// the recorded commit (git) or digest (archives and downloads), checking
// that its files have the recorded treeSha256, and keeps each lock entry
// as it was: a restore that changes nothing leaves the locks
// byte-identical. Everything is fetched and checked before anything is
// installed, so a source that changed (a mismatch) or is gone stops the
// restore with nothing changed. A skill already installed with the
// recorded files is unchanged; one edited in place is refused unless Force.
func (in *Installer) Restore(ctx context.Context, ro RestoreOptions) (*Result, error) {
	if len(in.Roots) == 0 {
		return nil, errors.New("no target folder")
	}
	var groups []*restoreGroup
	idx := map[string]*restoreGroup{}
	var from []string
	for _, root := range uniqueRoots(in.Roots) {
		lockPath := filepath.Join(root, LockFileName)
		l, err := ReadLock(root)
		if ro.LockFile != "" {
			lockPath = ro.LockFile
			l, err = ReadLockFile(ro.LockFile)
		}
		if err != nil {
			return nil, err
		}
		from = append(from, lockPath)
		var cur *Lock
		if ro.Frozen && ro.LockFile != "" {
			if cur, err = ReadLock(root); err != nil {
				return nil, err
			}
		}
		for _, name := range l.Names() {
			e, ok := l.Get(name)
			if !ok {
				return nil, fmt.Errorf("%s: the entry of %s cannot be read", lockPath, name)
			}
			if cur != nil {
				if have, ok := cur.Get(name); !ok || have != e {
					return nil, fmt.Errorf("%w: %s would be recorded in %s (--frozen)", ErrFrozen, name, filepath.Join(root, LockFileName))
				}
			}
			s := e.Source
			key := strings.Join([]string{root, s.Kind, s.Location, s.URL, s.Commit, s.Subdir, s.SHA256}, "\x00")
			g := idx[key]
			if g == nil {
				g = &restoreGroup{root: root, src: s, expect: map[string]LockEntry{}}
				idx[key] = g
				groups = append(groups, g)
			}
			g.expect[name] = e
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: %s records no skill; give a SOURCE to install", ErrNothingToRestore, strings.Join(from, ", "))
	}
	res := &Result{Skills: []Installed{}}
	// First every source is fetched and checked; then what needs it is installed.
	var todo []*restoreGroup
	for _, g := range groups {
		r, err := in.restoreGroup(ctx, g, true)
		if err != nil {
			return nil, fmt.Errorf("restore %s: %w; nothing was changed", strings.Join(g.names(), ", "), err)
		}
		changes := false
		for _, s := range r.Skills {
			if s.Status != StatusUnchanged {
				changes = true
			}
		}
		if changes {
			todo = append(todo, g)
		} else {
			res.Skills = append(res.Skills, r.Skills...)
		}
	}
	if in.DryRun {
		for _, g := range todo {
			r, err := in.restoreGroup(ctx, g, true)
			if err != nil {
				return nil, err
			}
			res.Skills = append(res.Skills, r.Skills...)
		}
		return res, nil
	}
	for _, g := range todo {
		r, err := in.restoreGroup(ctx, g, false)
		if err != nil {
			return nil, fmt.Errorf("restore %s: %w", strings.Join(g.names(), ", "), err)
		}
		res.Skills = append(res.Skills, r.Skills...)
	}
	sort.SliceStable(res.Skills, func(i, j int) bool { return res.Skills[i].Name < res.Skills[j].Name })
	return res, nil
}

// restoreGroup installs (or, dry, stages and checks) one group.
func (in *Installer) restoreGroup(ctx context.Context, g *restoreGroup, dry bool) (*Result, error) {
	o := in.Options
	o.Sources, o.Roots, o.Skills = []string{g.src.Location}, []string{g.root}, g.names()
	o.DryRun = dry || in.DryRun
	o.Expect = g.expect
	o.Ref, o.Subdir, o.AtCommit, o.SHA256 = "", "", "", ""
	switch g.src.Kind {
	case KindGit:
		if g.src.Commit == "" {
			return nil, fmt.Errorf("the lock records no commit for %s", g.src.Location)
		}
		o.AtCommit, o.Subdir = g.src.Commit, g.src.Subdir
	case KindArchive, KindURL:
		o.SHA256 = g.src.SHA256
	}
	sub := New(o)
	sub.fault = in.fault
	return sub.Run(ctx)
}
