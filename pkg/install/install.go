// Package install installs skills from archives, folders and URLs into the
// folders agents read, and uninstalls them, safely and atomically (SPEC §6):
// every source is unpacked and validated in a staging folder beside the
// target root before anything else is touched; the swap into place is a
// rename; the lock file is rewritten atomically under a file lock; and a
// journal lets the next run finish or undo an install that was interrupted.
package install

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/audit"
	"github.com/skillctl/skillctl/pkg/findings"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
	"github.com/skillctl/skillctl/pkg/validate"
)

// Errors callers may test for.
var (
	// ErrConflict: a skill of that name is in the target and skillctl may not replace it.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: a skill's validation has errors.
	ErrInvalid = errors.New("validation failed")
	// ErrNoSkill: the source holds no SKILL.md.
	ErrNoSkill = errors.New("no skill found")
)

// Statuses of an installed skill in a Result.
const (
	StatusInstalled      = "installed"
	StatusUpdated        = "updated"
	StatusUnchanged      = "unchanged"
	StatusWouldInstall   = "would-install"
	StatusWouldUpdate    = "would-update"
	StatusUninstalled    = "uninstalled"
	StatusWouldUninstall = "would-uninstall"
)

// Options configure an install.
type Options struct {
	// Sources are archive files, folders or http(s) URLs.
	Sources []string
	// Roots are the target folders (skills go in Root/<name>).
	Roots []string
	// Skills picks skills by name when a source holds several.
	Skills []string
	// Force replaces skills not installed by skillctl, installed from
	// another source, or edited since they were installed.
	Force bool
	// Strict refuses a skill with any validation error; by default only
	// what agents cannot load (or what is unsafe) is refused.
	Strict bool
	// SkipInvalid installs the skills of a source that can be installed
	// and reports the others, instead of refusing the whole source.
	SkipInvalid bool
	// Neighbours are the other skill folders agents load; a skill that
	// lands beside one of the same name there gets a Shadow note.
	Neighbours []Neighbour
	// DryRun stages and validates in a temp folder and changes nothing.
	DryRun bool
	// SHA256 is the expected digest of the (single) archive or download.
	SHA256 string
	// Limits cap every source; zero fields take the defaults.
	Limits archive.Limits
	// MaxDownloadBytes caps a download (default 512 MiB; negative: no cap).
	MaxDownloadBytes int64
	// DownloadTimeout bounds a download (default 5 minutes).
	DownloadTimeout time.Duration
	// HTTPClient is used for downloads (nil: a default client).
	HTTPClient *http.Client
	// Ref and Subdir choose the ref and the sub path of a git source,
	// where its form does not carry them (--ref, --subdir).
	Ref, Subdir string
	// GitTimeout bounds each git command (config git.timeout; default
	// config.DefaultGitTimeout).
	GitTimeout time.Duration
	// GitEnv is added to git's environment (tests).
	GitEnv []string
	// AtCommit, set by a restore, fetches a git source at this commit
	// whatever ref its form names, from the sub path Subdir.
	AtCommit string
	// Expect, set by a restore, is the lock entry each skill (by folder)
	// must reproduce: the skill's files must have its treeSha256 (else
	// the install fails with a *MismatchError), and the entry is kept as
	// it was, installedAt included.
	Expect map[string]LockEntry
	// LockFile is the lock the install is recorded in (LockPath); ""
	// records each root in its own (root/.skillctl-lock.json, as --dir).
	LockFile string
	// LegacyRoots are the scope's folders whose version 1 locks are
	// merged into LockFile (and then removed).
	LegacyRoots []string
	// AuditFailOn is the severity at which the audit refuses a skill
	// ("" means high, none turns the gate off); AllowRisk lists the audit
	// rules accepted anyway (--allow-risk, audit.allow).
	AuditFailOn string
	AllowRisk   []string
	// Jobs, when set, are installed instead of Sources into Roots (with
	// Skills, Ref, Subdir, AtCommit, SHA256 and Expect): each with its
	// own, all in one transaction.
	Jobs []Job
	// Cwd resolves relative source paths.
	Cwd string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Progress, when set, hears how unpacking goes.
	Progress func(Progress)
}

// Neighbour is a skills folder agents load besides the target roots.
type Neighbour struct {
	Dir string
	// Label says which tier it is (user, project).
	Label string
}

// Shadow notes that an installed skill has a namesake in another skills
// folder: where an agent loads both, one hides the other.
type Shadow struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Other string `json:"other"`
	Label string `json:"tier"`
}

// Progress reports unpacking of one source into one root.
type Progress struct {
	Source string
	Files  int
	Bytes  int64
}

// Installer installs skills.
type Installer struct {
	Options
	// fault, in tests, is called at each step of a commit; an error stops there.
	fault func(step string) error
}

// New returns an installer.
func New(opts Options) *Installer { return &Installer{Options: opts} }

// Installed describes one skill put into (or, in a dry run, bound for) a root.
type Installed struct {
	Name string `json:"name"`
	// Folder is the skill's folder name in the target: its name as a slug.
	Folder string `json:"folder"`
	Target string `json:"target"`
	Path   string `json:"path"`
	Status string `json:"status"`
	LockEntry
	FileInventory skill.FileInventory `json:"fileInventory"`
	// Warnings are the validation findings that did not stop the install.
	Warnings []validate.Finding `json:"warnings"`
	// Changes names the files an update changes, adds and removes
	// (updated and would-update only).
	Changes string `json:"changes,omitempty"`
}

// Result is the outcome of Run.
type Result struct {
	Skills []Installed `json:"skills"`
	// Ignored counts entries left out on purpose (__MACOSX, .DS_Store, folder clutter).
	Ignored int `json:"ignored"`
	// Skipped are symbolic links of folder sources that were not followed
	// (see pkg/skilltree).
	Skipped []Skipped `json:"skipped,omitempty"`
	// Refused are the skills left out with SkipInvalid, and why.
	Refused []Refused `json:"refused,omitempty"`
	// Shadows are namesakes of installed skills in other skills folders.
	Shadows []Shadow `json:"shadows,omitempty"`
}

// Refused is a skill of a source that cannot be installed, and why.
type Refused struct {
	Source  string   `json:"source"`
	Skill   string   `json:"skill"`
	Path    string   `json:"path"`
	Reasons []string `json:"reasons"`
	// Findings are the validation errors behind a refusal under Strict.
	Findings []validate.Finding `json:"findings,omitempty"`
	errs     []error
}

// BundleError: some skills of the sources cannot be installed, so none is
// (SPEC §6: a source is installed all or nothing).
type BundleError struct {
	Refused []Refused
	// Total is the number of skills the sources hold (as picked).
	Total int
}

func (e *BundleError) Error() string {
	var b strings.Builder
	one := true // every refusal from one source
	for _, r := range e.Refused {
		one = one && r.Source == e.Refused[0].Source
	}
	from := ""
	if one {
		from = " of " + e.Refused[0].Source
	}
	if e.Total == 1 {
		fmt.Fprintf(&b, "cannot install %s%s; nothing was installed:", e.Refused[0].Skill, from)
	} else {
		fmt.Fprintf(&b, "%d of %d skills%s cannot be installed; nothing was installed:", len(e.Refused), e.Total, from)
	}
	for _, r := range e.Refused {
		where := r.Skill
		if r.Path != "" && r.Path != r.Skill {
			where += " (" + r.Path + ")"
		}
		if !one {
			where = r.Source + ": " + where
		}
		for _, why := range r.Reasons {
			fmt.Fprintf(&b, "\n  %s: %s", where, why)
		}
		if len(r.Findings) > 0 {
			var fb strings.Builder
			_ = findings.WriteText(&fb, r.Findings, findings.TextStyle{Prefix: "    "})
			b.WriteString("\n" + strings.TrimSuffix(fb.String(), "\n"))
		}
	}
	if e.Total > 1 {
		b.WriteString("\n--skip-invalid installs the others; --skill NAME picks some")
	}
	return b.String()
}

// Unwrap gives ErrInvalid and the errors behind the refusals (an unsafe
// archive entry is an *archive.EntryError).
func (e *BundleError) Unwrap() []error {
	out := []error{ErrInvalid}
	for _, r := range e.Refused {
		out = append(out, r.errs...)
	}
	return out
}

// Skipped is something of a source that was left out, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// candidate is one skill found in a staged source.
type candidate struct {
	src  *source
	st   *staged
	rel  string // slash path of the skill folder inside the tree ("" for the top)
	dir  string // its folder on disk
	name string
	// folder is the name of its folder in the target: name as a slug.
	folder string
	sk     *skill.Skill
	res    *validate.Result
	entry  LockEntry
	// problems say why it cannot be installed (empty: it can); strict
	// holds the validation errors behind a refusal under Strict.
	problems []string
	errs     []error
	strict   []validate.Finding
	existing bool
	// unchanged: the target already holds exactly these files.
	unchanged bool
	// recordOnly: unchanged files whose source moved (a new commit with
	// the same tree): only the lock entry is rewritten.
	recordOnly bool
	// changes names what replacing the installed folder changes.
	changes   string
	inventory skill.FileInventory
}

func (c *candidate) refuse(format string, a ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, a...))
}

// refuseErr refuses for err, which the install's error then wraps.
func (c *candidate) refuseErr(err error) {
	c.problems = append(c.problems, skill.ErrorReason(err))
	c.errs = append(c.errs, err)
}

func (c *candidate) label() string {
	switch {
	case c.name != "":
		return c.name
	case c.rel != "":
		return c.rel
	}
	return "the skill at the top"
}

func (c *candidate) refused() Refused {
	return Refused{Source: c.src.arg, Skill: c.label(), Path: c.rel, Reasons: c.problems, Findings: c.strict, errs: c.errs}
}

func (in *Installer) now() time.Time {
	if in.Now != nil {
		return in.Now().UTC()
	}
	return time.Now().UTC()
}

// Job is one install of a Run with its own sources, roots and settings:
// Run installs several jobs as one transaction (update and restore, which
// fetch each source at its own ref or commit).
type Job struct {
	Sources, Roots, Skills []string
	// Ref, Subdir, AtCommit, SHA256 and Expect are as in Options.
	Ref, Subdir, AtCommit, SHA256 string
	Expect                        map[string]LockEntry
}

// jobs is in.Jobs, or the one job Options describes.
func (in *Installer) jobs() []Job {
	if len(in.Jobs) > 0 {
		return in.Jobs
	}
	return []Job{{Sources: in.Sources, Roots: in.Roots, Skills: in.Skills, Ref: in.Ref, Subdir: in.Subdir,
		AtCommit: in.AtCommit, SHA256: in.SHA256, Expect: in.Expect}}
}

// forJob is an installer with the job's settings.
func (in *Installer) forJob(j Job) *Installer {
	o := in.Options
	o.Jobs = nil
	o.Sources, o.Roots, o.Skills, o.Ref, o.Subdir, o.AtCommit, o.SHA256, o.Expect =
		j.Sources, j.Roots, j.Skills, j.Ref, j.Subdir, j.AtCommit, j.SHA256, j.Expect
	return &Installer{Options: o, fault: in.fault}
}

// Run installs every source into every root (of every job). It is all or
// nothing: every source is staged and validated, and every conflict
// checked, before the first skill is moved into place; a skill that cannot
// be installed stops them all (BundleError), unless SkipInvalid leaves it
// out. The lock is read once and written once.
func (in *Installer) Run(ctx context.Context) (*Result, error) {
	jobs := in.jobs()
	var all []string
	for _, j := range jobs {
		if len(j.Roots) == 0 {
			return nil, errors.New("no target folder")
		}
		all = append(all, j.Roots...)
	}
	roots := uniqueRoots(all)
	type opened struct {
		in   *Installer
		srcs []*source
	}
	var subs []opened
	defer func() {
		for _, o := range subs {
			for _, s := range o.srcs {
				s.cleanup()
			}
		}
	}()
	for _, j := range jobs {
		sub := in.forJob(j)
		srcs, err := sub.openSources(ctx)
		subs = append(subs, opened{sub, srcs})
		if err != nil {
			return nil, err
		}
	}
	res := &Result{Skills: []Installed{}}
	type plan struct {
		root    string
		staging string
		lock    *scopeLock
		prefix  string // the root's key in the lock
		cands   []*candidate
	}
	var plans []*plan
	var held heldLocks
	var created []string // folders made for the roots, deepest last
	ok := false
	defer func() {
		for _, p := range plans {
			if p.staging != "" {
				os.RemoveAll(p.staging)
			}
		}
		held.release()
		if !ok {
			// A failed install leaves no trace, not even an empty folder.
			for i := len(created) - 1; i >= 0; i-- {
				os.Remove(created[i])
			}
		}
	}()
	// Lock the lock files' folders and every root (in a fixed order),
	// read each lock once, stage and check everything, then commit.
	dirs := lockDirsOf(in.LockFile, roots)
	if !in.DryRun {
		for _, d := range append(slices.Clone(dirs), roots...) {
			for _, m := range missingDirs(d) {
				if !slices.Contains(created, m) {
					created = append(created, m)
				}
			}
		}
		var err error
		if held, err = lockDirs(ctx, dirs, roots); err != nil {
			return nil, err
		}
	}
	locks := map[string]*scopeLock{}
	for _, root := range roots {
		lp := lockOf(in.LockFile, root)
		if locks[lp] == nil {
			legacy := []string(nil)
			if in.LockFile != "" {
				legacy = append(slices.Clone(in.LegacyRoots), roots...)
			}
			l, err := openScopeLock(lp, legacy) // empty when a dry run's lock does not exist
			if err != nil {
				return nil, err
			}
			locks[lp] = l
		}
	}
	taken := map[string]string{} // folder → the source that fills it
	for _, o := range subs {
		var first []*candidate
		for i, root := range uniqueRoots(o.in.Roots) {
			lp := lockOf(in.LockFile, root)
			p := &plan{root: root, lock: locks[lp], prefix: FolderKey(filepath.Dir(lp), root)}
			plans = append(plans, p)
			var err error
			if in.DryRun {
				if p.staging, err = os.MkdirTemp("", "skillctl-dry-run-*"); err != nil {
					return nil, err
				}
			} else if p.staging, err = newStaging(root); err != nil {
				return nil, err
			}
			cands, ignored, err := o.in.stageAll(ctx, p.staging, o.srcs)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				res.Ignored += ignored
				if cands, err = o.in.sortOut(cands, res); err != nil {
					return nil, err
				}
				first = cands
			} else {
				// The same sources give the same verdicts in every root.
				cands = sameAs(cands, first)
			}
			for _, c := range cands {
				dest := filepath.Join(root, c.folder)
				if other, dup := taken[dest]; dup {
					return nil, &ConflictError{Conflicts: []string{fmt.Sprintf("%s would be filled from %s and from %s", dest, other, c.src.arg)}, Unforceable: true}
				}
				taken[dest] = c.src.arg
			}
			if err := o.in.checkConflicts(ctx, root, p.lock.Lock, p.prefix, cands); err != nil {
				return nil, err
			}
			p.cands = cands
		}
	}
	var txs []*tx
	for _, p := range plans {
		var todo []*candidate
		for _, c := range p.cands {
			if !c.unchanged {
				todo = append(todo, c)
				continue
			}
			// The same files from a source that moved (a branch whose new
			// commit leaves this skill as it was): the lock follows the
			// source, the files and their install time stay.
			if e, ok := p.lock.Get(joinKey(p.prefix, c.folder)); ok && e.Source != c.entry.Source {
				ne := c.entry
				ne.InstalledAt = e.InstalledAt
				c.entry, c.recordOnly = ne, true
				todo = append(todo, c)
			}
		}
		if !in.DryRun && len(todo) > 0 {
			txs = append(txs, &tx{root: p.root, staging: p.staging, j: installJournal(p.lock, p.prefix, p.staging, todo)})
			p.staging = "" // commitAll cleans up (or rolls back, or crashes) itself
		}
	}
	if len(txs) > 0 {
		if err := commitAll(txs, locks, held, in.step); err != nil {
			return nil, err
		}
	}
	for _, p := range plans {
		for _, c := range p.cands {
			res.Skills = append(res.Skills, installedOf(p.root, c, in.status(c)))
		}
	}
	sortInstalled(res.Skills)
	for _, o := range subs {
		res.Skipped = append(res.Skipped, skippedOf(o.srcs)...)
	}
	res.Shadows = in.shadows(res.Skills, roots)
	ok = true
	return res, nil
}

// missingDirs lists the folders that creating dir would make, outermost first.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

func (in *Installer) status(c *candidate) string {
	switch {
	case c.unchanged:
		return StatusUnchanged
	case c.existing && in.DryRun:
		return StatusWouldUpdate
	case c.existing:
		return StatusUpdated
	case in.DryRun:
		return StatusWouldInstall
	}
	return StatusInstalled
}

// openSources opens every source argument.
func (in *Installer) openSources(ctx context.Context) ([]*source, error) {
	if len(in.Sources) == 0 {
		return nil, errors.New("nothing to install: give an archive, a folder, a SKILL.md, a URL or a git repository")
	}
	if in.SHA256 != "" {
		if len(in.Sources) != 1 {
			return nil, fmt.Errorf("%w: a checksum applies to one source; install the sources one at a time", ErrChecksumUse)
		}
		if _, err := hex.DecodeString(in.SHA256); err != nil || len(in.SHA256) != 64 {
			return nil, fmt.Errorf("%w: %q is not a sha256 (64 hex digits)", ErrChecksumUse, in.SHA256)
		}
	}
	var srcs []*source
	for _, arg := range in.Sources {
		s, err := in.openSource(ctx, arg)
		if err != nil {
			return srcs, err
		}
		srcs = append(srcs, s)
	}
	return srcs, nil
}

// sortOut applies SPEC §6's all-or-nothing rule: with any skill refused,
// the install fails naming every one, unless SkipInvalid, which leaves them
// out (recorded in res.Refused).
func (in *Installer) sortOut(cands []*candidate, res *Result) ([]*candidate, error) {
	var ok []*candidate
	var refused []Refused
	for _, c := range cands {
		if len(c.problems) > 0 {
			refused = append(refused, c.refused())
		} else {
			ok = append(ok, c)
		}
	}
	if len(refused) == 0 {
		return ok, nil
	}
	if !in.SkipInvalid || len(ok) == 0 {
		return nil, &BundleError{Refused: refused, Total: len(cands)}
	}
	res.Refused = append(res.Refused, refused...)
	return ok, nil
}

// sameAs picks from cands (staged for a later root) those that passed in
// the first root, matched by their place in the source.
func sameAs(cands, first []*candidate) []*candidate {
	keep := map[string]bool{}
	for _, c := range first {
		keep[c.src.arg+"\x00"+c.rel] = true
	}
	var out []*candidate
	for _, c := range cands {
		if keep[c.src.arg+"\x00"+c.rel] {
			out = append(out, c)
		}
	}
	return out
}

// shadows finds namesakes of the installed skills in the neighbour folders.
func (in *Installer) shadows(skills []Installed, roots []string) []Shadow {
	var out []Shadow
	for _, nb := range in.Neighbours {
		dir := filepath.Clean(nb.Dir)
		if slices.Contains(roots, dir) {
			continue
		}
		for _, s := range skills {
			other := filepath.Join(dir, s.Folder)
			if _, err := os.Stat(filepath.Join(other, "SKILL.md")); err == nil {
				out = append(out, Shadow{Name: s.Name, Path: s.Path, Other: other, Label: nb.Label})
			}
		}
	}
	return out
}

func skippedOf(srcs []*source) []Skipped {
	var out []Skipped
	for _, s := range srcs {
		out = append(out, s.skipped...)
	}
	return out
}

func installedOf(root string, c *candidate, status string) Installed {
	var warnings []validate.Finding
	for _, f := range c.res.Findings {
		f.File = relFile(c.dir, f.File)
		warnings = append(warnings, f)
	}
	if warnings == nil {
		warnings = []validate.Finding{}
	}
	return Installed{Name: c.name, Folder: c.folder, Target: root, Path: filepath.Join(root, c.folder), Status: status, LockEntry: c.entry, FileInventory: c.inventory, Warnings: warnings,
		Changes: c.changes}
}

func relFile(dir, f string) string {
	if r, err := filepath.Rel(dir, f); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return f
}

func sortInstalled(s []Installed) {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Name != s[j].Name {
			return s[i].Name < s[j].Name
		}
		return s[i].Target < s[j].Target
	})
}

func uniqueRoots(roots []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range roots {
		r = filepath.Clean(r)
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// newStaging creates a fresh staging folder beside the target's skills.
func newStaging(root string) (string, error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	dir := filepath.Join(root, fmt.Sprintf("%s%d-%s", stagingPrefix, os.Getpid(), hex.EncodeToString(b[:])))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("create staging folder: %w", err)
	}
	return dir, nil
}

// stageAll unpacks every source under staging, finds the skills, and
// checks each: the ones that cannot be installed carry their problems.
func (in *Installer) stageAll(ctx context.Context, staging string, srcs []*source) ([]*candidate, int, error) {
	var all []*candidate
	ignored := 0
	for i, s := range srcs {
		tree := filepath.Join(staging, fmt.Sprintf("src-%d", i))
		if err := os.Mkdir(tree, 0o755); err != nil {
			return nil, 0, err
		}
		var progress func(int, int64)
		if in.Progress != nil {
			progress = func(files int, bytes int64) { in.Progress(Progress{Source: s.arg, Files: files, Bytes: bytes}) }
		}
		var st *staged
		var err error
		if s.kind == KindPath || s.kind == KindGit || s.kind == KindWellKnown {
			if s.rels == nil {
				if err := findInFolder(ctx, s); err != nil {
					return nil, 0, err
				}
			}
			st, err = stageFolder(ctx, s.path, tree, in.Limits, progress)
		} else {
			st, err = stageArchive(ctx, s.path, tree, archive.Options{Limits: in.Limits}, progress)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w; nothing was installed", s.arg, err)
		}
		ignored += st.ignored
		cands, err := in.locate(s, st)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, cands...)
	}
	// Two skills that would land in one folder are both refused.
	byFolder := map[string]*candidate{}
	for _, c := range all {
		if len(c.problems) > 0 || c.folder == "" {
			continue
		}
		if other, ok := byFolder[c.folder]; ok {
			other.refuse("it would be installed into the same folder %s as %s (%s); pick one with --skill", c.folder, c.label(), where(c))
			c.refuse("it would be installed into the same folder %s as %s (%s); pick one with --skill", c.folder, other.label(), where(other))
			continue
		}
		byFolder[c.folder] = c
	}
	if err := in.prepareAll(ctx, all); err != nil {
		return nil, 0, err
	}
	return all, ignored, nil
}

func where(c *candidate) string {
	if c.rel == "" {
		return c.src.arg
	}
	return c.src.arg + ": " + c.rel
}

// prepareAll validates the skills that passed so far and fills in their
// lock entries.
func (in *Installer) prepareAll(ctx context.Context, all []*candidate) error {
	now := in.now()
	for _, c := range all {
		if len(c.problems) > 0 {
			continue
		}
		if err := c.prepare(ctx, now, in.Strict); err != nil {
			return err
		}
		if len(c.problems) > 0 {
			continue
		}
		exp, restoring := in.Expect[c.folder]
		accepted, err := in.gate(ctx, c, exp.AuditAccepted)
		if err != nil {
			return err
		}
		c.entry.AuditAccepted = accepted
		if restoring {
			tree := c.entry.TreeSha256
			if tree != exp.TreeSha256 {
				// A version 1 lock recorded another form of the digest.
				if m, err := treeManifest(ctx, c.dir); err != nil || m.legacySum() != exp.TreeSha256 {
					return &MismatchError{Name: c.folder, Source: c.src.arg, Want: exp.TreeSha256, Got: tree}
				}
			}
			c.entry = exp
			c.entry.TreeSha256 = tree
		}
	}
	return nil
}

// gate audits a skill before it is installed (SPEC §14): a finding at or
// above AuditFailOn refuses it, naming the finding, unless its rule is
// allowed (AllowRisk, or recorded as accepted in the lock entry being
// restored). It returns the rules accepted that way, for the lock.
func (in *Installer) gate(ctx context.Context, c *candidate, recorded string) (string, error) {
	failOn := in.AuditFailOn
	if failOn == "" {
		failOn = findings.High
	}
	if failOn == "none" {
		return "", nil
	}
	display := c.rel
	if display == "" {
		display = c.folder
	}
	res, err := audit.Dir(ctx, c.dir, display)
	if err != nil {
		return "", err
	}
	allowed := map[string]bool{}
	for _, r := range in.AllowRisk {
		allowed[r] = true
	}
	for _, r := range strings.Split(recorded, ",") {
		if r != "" {
			allowed[r] = true
		}
	}
	var accepted []string
	for _, f := range res.Findings {
		if !audit.AtLeast(f.Severity, failOn) {
			continue
		}
		if allowed[f.Rule] {
			if !slices.Contains(accepted, f.Rule) {
				accepted = append(accepted, f.Rule)
			}
			continue
		}
		c.refuse("audit: %s %s at %s: %s (--allow-risk %s accepts it)", f.Severity, f.Rule, f.Location(), f.Message, f.Rule)
	}
	sort.Strings(accepted)
	return strings.Join(accepted, ","), nil
}

// MismatchError is a restored skill whose files are not the ones its lock
// entry records.
type MismatchError struct {
	Name, Source string
	Want, Got    string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s from %s: the files differ from the lock (treeSha256 %.12s, recorded %.12s): the source changed since the lock was written",
		e.Name, e.Source, e.Got, e.Want)
}

// findInFolder finds the skills of a folder source with the one finder,
// before it is staged, and notes the links it did not follow.
func findInFolder(ctx context.Context, s *source) error {
	found, problems, err := skilltree.Find(ctx, s.path, skilltree.Options{Layout: skilltree.Tree})
	if err != nil {
		return fmt.Errorf("%s: %w", s.arg, err)
	}
	s.rels = []string{}
	for _, f := range found {
		if f.Rel == "." {
			f.Rel = ""
		}
		s.rels = append(s.rels, f.Rel)
	}
	for _, p := range problems {
		if p.Skipped() {
			s.skipped = append(s.skipped, Skipped{Path: p.Dir, Reason: skill.ErrorReason(p.Err)})
		}
	}
	return nil
}

// prepare validates the skill and fills in its lock entry. What install
// refuses is what agents cannot load (SPEC §6): a SKILL.md that cannot be
// read (checked by locate), no description, or — with strict — any
// validation error. Everything else is a warning.
func (c *candidate) prepare(ctx context.Context, now time.Time, strict bool) error {
	// Validated under the folder name it will be installed as.
	c.res = validate.Dir(c.dir, validate.Options{Profile: validate.ProfileDefault, DirName: c.folder})
	if strings.TrimSpace(c.sk.Description) == "" {
		c.refuse("SKILL.md has no description; agents do not load a skill without one (add description: to its frontmatter)")
	}
	if strict && c.res.HasErrors() {
		c.refuse("validation errors (--strict refuses them):")
		for _, f := range findings.Only(c.res.Findings, findings.Error) {
			f.File = relFile(filepath.Dir(c.dir), f.File)
			c.strict = append(c.strict, f)
		}
	}
	if len(c.problems) > 0 {
		return nil
	}
	tree, inv, ok := c.st.treeOf(c.rel)
	if !ok {
		files, err := skill.Files(c.dir)
		if err != nil {
			return err
		}
		if tree, err = TreeSHA256(ctx, c.dir); err != nil {
			return err
		}
		inv = skill.Inventory(files)
	}
	mdSum, err := fileSHA256(ctx, c.sk.File, make([]byte, 32<<10))
	if err != nil {
		return err
	}
	c.entry = LockEntry{
		DeclaredVersion: c.sk.Exec.Version,
		Source: SourceRef{Kind: c.src.kind, Location: c.src.location, SHA256: c.src.sha256,
			URL: c.src.gitURL, Ref: c.src.ref, Commit: c.src.commit, Subdir: c.src.subdir},
		InstalledAt:   now.Format(time.RFC3339),
		SkillMdSha256: mdSum,
		TreeSha256:    tree,
	}
	if d, ok := c.src.digests[c.rel]; ok {
		c.entry.Source.SHA256 = d
	}
	c.inventory = inv
	return nil
}

// checkName refuses names that cannot be one folder of the target root.
func checkName(name string) error {
	switch {
	case name == "", name == ".", name == "..":
		return fmt.Errorf("skill name %q cannot name a folder", name)
	case strings.HasPrefix(name, "."):
		return fmt.Errorf("skill name %q starts with a dot; agents would not see it", name)
	case strings.ContainsAny(name, "/\\:\x00"), len(name) > 255:
		return fmt.Errorf("skill name %q cannot name a folder (no slashes, colons or NUL; at most 255 bytes)", name)
	}
	return nil
}

// checkConflicts applies the rules of SPEC §6 against root: a folder that
// already holds exactly the new files is unchanged; one that skillctl did
// not install, or installed from another source, or whose files were
// edited since, is refused unless Force. Every conflict is named.
func (in *Installer) checkConflicts(ctx context.Context, root string, lock *Lock, prefix string, cands []*candidate) error {
	// Names equal under Unicode normalisation (NFKC) are one name: a second
	// folder that looks the same is refused, --force or not.
	// An ASCII name is its own key: only other names can collide.
	keys := map[string]string{}
	if names, err := readNames(root); err == nil {
		for _, n := range names {
			if k := skill.NameKey(n); k != n {
				if fi, err := os.Lstat(filepath.Join(root, n)); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
					keys[k] = n
				}
			}
		}
	}
	var conflicts []string
	for _, c := range cands {
		k := skill.NameKey(c.folder)
		if other, ok := keys[k]; ok && other != c.folder {
			conflicts = append(conflicts, fmt.Sprintf("%s: the name %q is the same as %q (in %s) after Unicode normalisation (NFKC); rename one of them", c.src.arg, c.folder, other, root))
		}
		keys[k] = c.folder
	}
	if len(conflicts) > 0 {
		return &ConflictError{Conflicts: conflicts, Unforceable: true}
	}
	for _, c := range cands {
		dest := filepath.Join(root, c.folder)
		fi, err := os.Lstat(dest)
		if err != nil {
			continue
		}
		c.existing = true
		e, managed := lock.Get(joinKey(prefix, c.folder))
		if managed && fi.IsDir() {
			cur, err := treeManifest(ctx, dest)
			switch {
			case err != nil:
			case cur.sum() == c.entry.TreeSha256:
				c.unchanged = true // exactly these files: nothing to do
				continue
			default:
				if nm, err := treeManifest(ctx, c.dir); err == nil {
					ch, add, rm := treeDiff(cur, nm)
					c.changes = changeList(ch, add, rm, "")
				}
			}
			switch {
			case err != nil:
			case !cur.matches(e.TreeSha256) && !in.Force:
				conflicts = append(conflicts, fmt.Sprintf("%s was changed since it was installed (%s); your changes would be lost",
					dest, describeChanges(cur, e, c.dir)))
				continue
			}
		}
		if in.Force {
			continue
		}
		switch {
		case !managed:
			conflicts = append(conflicts, fmt.Sprintf("%s exists and was not installed by skillctl", dest))
		case e.Source.Kind != c.src.kind || e.Source.Location != c.src.location:
			conflicts = append(conflicts, fmt.Sprintf("%s was installed from %s, not from %s", dest, e.Source.Location, c.src.location))
		}
	}
	if len(conflicts) > 0 {
		return &ConflictError{Conflicts: conflicts}
	}
	return nil
}

// ConflictError names every skill of an install that the target's
// contents stop.
type ConflictError struct {
	Conflicts []string
	// Unforceable: --force does not get past it.
	Unforceable bool
}

func (e *ConflictError) Error() string {
	if len(e.Conflicts) == 1 {
		return "conflict: " + e.Conflicts[0] + "; nothing was installed"
	}
	return fmt.Sprintf("%d conflicts; nothing was installed:\n  %s", len(e.Conflicts), strings.Join(e.Conflicts, "\n  "))
}

func (e *ConflictError) Unwrap() error { return ErrConflict }
