package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillctl/skillctl/pkg/skill"
)

// UninstallOptions configure an uninstall.
type UninstallOptions struct {
	Names []string
	Roots []string
	// Force removes skills the lock file does not record.
	Force bool
	// DryRun reports what would be removed and changes nothing.
	DryRun bool
	// LockFile and LegacyRoots say which lock records the skills, as
	// for Options.
	LockFile    string
	LegacyRoots []string
	// Everywhere: the roots are every agent's folders, not ones the user
	// named; a folder there that skillctl did not install is left alone
	// (StatusKept) when skillctl installed the name elsewhere.
	Everywhere bool
}

// StatusKept: a folder of that name that skillctl did not install, left
// in place.
const StatusKept = "kept"

// Uninstaller removes installed skills.
type Uninstaller struct {
	UninstallOptions
	fault func(step string) error
}

// NewUninstaller returns an uninstaller.
func NewUninstaller(opts UninstallOptions) *Uninstaller { return &Uninstaller{UninstallOptions: opts} }

// Removed is one skill removed from one root.
type Removed struct {
	Name   string `json:"name"`
	Target string `json:"target"`
	Path   string `json:"path"`
	Status string `json:"status"`
	// Managed is false for a folder removed with --force that the lock did not record.
	Managed bool `json:"managed"`
}

// Run removes each name from every root that has it: the folder is renamed
// into a staging folder, the lock rewritten, then the folder deleted. A
// name found in no root is ErrNotFound; a folder the lock does not record
// is refused unless Force. Nothing is removed unless every name passes.
func (u *Uninstaller) Run(ctx context.Context) ([]Removed, error) {
	if len(u.Names) == 0 {
		return nil, errors.New("name the skills to uninstall")
	}
	for _, n := range u.Names {
		if err := checkName(n); err != nil && skill.Slug(n) == "" {
			return nil, err
		}
	}
	roots := uniqueRoots(u.Roots)
	type plan struct {
		root   string
		lock   *scopeLock
		prefix string
		ops    []journalOp
		out    []Removed
	}
	var plans []*plan
	var looked []string // the roots that exist
	for _, root := range roots {
		if _, err := os.Stat(root); err == nil {
			looked = append(looked, root)
		}
	}
	var held heldLocks
	defer func() { held.release() }()
	if !u.DryRun && len(looked) > 0 {
		var err error
		if held, err = lockDirs(ctx, lockDirsOf(u.LockFile, looked), looked); err != nil {
			return nil, err
		}
	}
	locks := map[string]*scopeLock{}
	found := map[string]bool{}
	var kept []Removed
	for _, root := range looked {
		lp := lockOf(u.LockFile, root)
		if locks[lp] == nil {
			legacy := []string(nil)
			if u.LockFile != "" {
				legacy = append(slices.Clone(u.LegacyRoots), looked...)
			}
			l, err := openScopeLock(lp, legacy)
			if err != nil {
				return nil, err
			}
			locks[lp] = l
		}
		p := &plan{root: root, lock: locks[lp], prefix: FolderKey(filepath.Dir(lp), root)}
		lock := p.lock.Lock
		for _, name := range u.Names {
			folder := name
			managed := lock.Has(joinKey(p.prefix, folder))
			dest := filepath.Join(root, folder)
			_, statErr := os.Lstat(dest)
			if statErr != nil && !managed {
				// A skill's name, where its folder is the name's slug.
				if slug := skill.Slug(name); slug != "" && slug != name {
					folder, dest = slug, filepath.Join(root, slug)
					managed = lock.Has(joinKey(p.prefix, folder))
					_, statErr = os.Lstat(dest)
				}
			}
			if statErr != nil && !managed || checkName(folder) != nil {
				continue
			}
			if !managed && !u.Force {
				if u.Everywhere {
					kept = append(kept, Removed{Name: name, Target: root, Path: dest, Status: StatusKept})
					continue
				}
				return nil, fmt.Errorf("%w: %s was not installed by skillctl (%s has no entry for it)", ErrConflict, dest, lp)
			}
			found[name] = true
			status := StatusUninstalled
			if u.DryRun {
				status = StatusWouldUninstall
			}
			p.ops = append(p.ops, journalOp{Op: "uninstall", Name: folder})
			p.out = append(p.out, Removed{Name: name, Target: root, Path: dest, Status: status, Managed: managed})
		}
		plans = append(plans, p)
	}
	var missing []string
	for _, n := range u.Names {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	for _, k := range kept {
		if !found[k.Name] {
			return nil, fmt.Errorf("%w: %s was not installed by skillctl (%s has no entry for it)", ErrConflict, k.Path, lockOf(u.LockFile, k.Target))
		}
	}
	if len(missing) > 0 {
		var installed []string
		if len(looked) == 0 {
			looked = roots
		}
		for _, l := range locks {
			installed = append(installed, l.Names()...)
		}
		return nil, &skill.NotFoundError{What: "installed skill", Name: strings.Join(missing, ", "),
			Detail:      fmt.Sprintf("%s is not installed in %s ('skillctl list' shows every skill)", strings.Join(missing, ", "), strings.Join(looked, ", ")),
			Suggestions: skill.Closest(missing[0], installed)}
	}
	out := kept
	var txs []*tx
	for _, p := range plans {
		if len(p.ops) == 0 {
			continue
		}
		if !u.DryRun {
			staging, err := newStaging(p.root)
			if err != nil {
				for _, t := range txs {
					os.RemoveAll(t.staging)
				}
				return out, err
			}
			txs = append(txs, &tx{root: p.root, staging: staging, j: journal{Lock: p.lock.path, Prefix: p.prefix, Ops: p.ops}})
		}
		out = append(out, p.out...)
	}
	if len(txs) > 0 {
		step := func(s string) error {
			if u.fault != nil {
				return u.fault(s)
			}
			return nil
		}
		if err := commitAll(txs, locks, held, step); err != nil {
			return kept, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Target < out[j].Target
	})
	return out, nil
}
