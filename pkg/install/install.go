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
	"sort"
	"strings"
	"time"

	"github.com/skillctl/skillctl/pkg/archive"
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
	StatusReplaced       = "replaced"
	StatusWouldInstall   = "would-install"
	StatusWouldReplace   = "would-replace"
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
	// Force replaces skills not installed by skillctl or installed from another source.
	Force bool
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
	// Cwd resolves relative source paths.
	Cwd string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Progress, when set, hears how unpacking goes.
	Progress func(Progress)
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
	Name   string `json:"name"`
	Target string `json:"target"`
	Path   string `json:"path"`
	Status string `json:"status"`
	LockEntry
	// Warnings are the validation findings that did not stop the install.
	Warnings []validate.Finding `json:"warnings"`
}

// Result is the outcome of Run.
type Result struct {
	Skills []Installed `json:"skills"`
	// Ignored counts entries left out on purpose (__MACOSX, .DS_Store, folder clutter).
	Ignored int `json:"ignored"`
	// Skipped are symbolic links of folder sources that were not followed
	// (see pkg/skilltree).
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is something of a source that was left out, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// InvalidError lists the findings that stopped a skill.
type InvalidError struct {
	Source   string
	Skill    string
	Findings []validate.Finding
}

func (e *InvalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: skill %s has validation errors; nothing was installed:", e.Source, e.Skill)
	b.WriteByte('\n')
	_ = findings.WriteText(&b, findings.Only(e.Findings, findings.Error), findings.TextStyle{Prefix: "  "})
	return strings.TrimSuffix(b.String(), "\n")
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// candidate is one skill found in a staged source.
type candidate struct {
	src      *source
	st       *staged
	rel      string // slash path of the skill folder inside the tree ("" for the top)
	dir      string // its folder on disk
	name     string
	res      *validate.Result
	entry    LockEntry
	existing bool
}

func (in *Installer) now() time.Time {
	if in.Now != nil {
		return in.Now().UTC()
	}
	return time.Now().UTC()
}

// Run installs every source into every root. Per root it is all or
// nothing: every source is staged and validated, and every conflict
// checked, before the first skill is moved into place.
func (in *Installer) Run(ctx context.Context) (*Result, error) {
	if len(in.Sources) == 0 {
		return nil, errors.New("nothing to install: give an archive, a folder or a URL")
	}
	if len(in.Roots) == 0 {
		return nil, errors.New("no target folder")
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
	defer func() {
		for _, s := range srcs {
			s.cleanup()
		}
	}()
	for _, arg := range in.Sources {
		s, err := in.openSource(ctx, arg)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, s)
	}
	roots := uniqueRoots(in.Roots)
	res := &Result{Skills: []Installed{}}
	if in.DryRun {
		for _, root := range roots {
			if err := in.dryRun(ctx, root, srcs, res); err != nil {
				return res, err
			}
		}
		sortInstalled(res.Skills)
		res.Skipped = skippedOf(srcs)
		return res, nil
	}
	// Lock every root (in a fixed order), stage and check everything, then commit.
	var locks []*rootLock
	defer func() {
		for _, l := range locks {
			l.release()
		}
	}()
	type plan struct {
		root    string
		staging string
		cands   []*candidate
	}
	var plans []*plan
	defer func() {
		for _, p := range plans {
			if p.staging != "" {
				os.RemoveAll(p.staging)
			}
		}
	}()
	for _, root := range roots {
		l, err := lockRoot(ctx, root)
		if err != nil {
			return nil, err
		}
		locks = append(locks, l)
		staging, err := newStaging(root)
		if err != nil {
			return nil, err
		}
		p := &plan{root: root, staging: staging}
		plans = append(plans, p)
		cands, ignored, err := in.stageAll(ctx, staging, srcs)
		if err != nil {
			return nil, err
		}
		res.Ignored += ignored
		if err := in.checkConflicts(root, cands); err != nil {
			return nil, err
		}
		p.cands = cands
	}
	for _, p := range plans {
		if err := in.commit(p.root, p.staging, p.cands); err != nil {
			if errors.Is(err, errCrash) {
				p.staging = "" // a simulated crash leaves everything as it is
				return nil, err
			}
			p.staging = "" // commit cleaned up (or rolled back) itself
			return nil, err
		}
		p.staging = ""
		for _, c := range p.cands {
			status := StatusInstalled
			if c.existing {
				status = StatusReplaced
			}
			res.Skills = append(res.Skills, installedOf(p.root, c, status))
		}
	}
	sortInstalled(res.Skills)
	res.Skipped = skippedOf(srcs)
	return res, nil
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
		if f.Severity != skill.SeverityError {
			f.File = relFile(c.dir, f.File)
			warnings = append(warnings, f)
		}
	}
	if warnings == nil {
		warnings = []validate.Finding{}
	}
	return Installed{Name: c.name, Target: root, Path: filepath.Join(root, c.name), Status: status, LockEntry: c.entry, Warnings: warnings}
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

func (in *Installer) dryRun(ctx context.Context, root string, srcs []*source, res *Result) error {
	tmp, err := os.MkdirTemp("", "skillctl-dry-run-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cands, ignored, err := in.stageAll(ctx, tmp, srcs)
	if err != nil {
		return err
	}
	res.Ignored += ignored
	if err := in.checkConflicts(root, cands); err != nil {
		return err
	}
	for _, c := range cands {
		status := StatusWouldInstall
		if c.existing {
			status = StatusWouldReplace
		}
		res.Skills = append(res.Skills, installedOf(root, c, status))
	}
	return nil
}

// stageAll unpacks every source under staging, finds the skills, checks
// their links and validates them.
func (in *Installer) stageAll(ctx context.Context, staging string, srcs []*source) ([]*candidate, int, error) {
	var all []*candidate
	ignored := 0
	names := map[string]string{}
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
		if s.kind == KindFolder {
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
			return nil, 0, fmt.Errorf("%s: %w", s.arg, err)
		}
		ignored += st.ignored
		cands, err := in.locate(s, st)
		if err != nil {
			return nil, 0, err
		}
		for _, c := range cands {
			if prev, ok := names[c.name]; ok {
				return nil, 0, fmt.Errorf("two skills named %s: in %s and in %s; install them one at a time", c.name, prev, s.arg)
			}
			names[c.name] = s.arg
		}
		all = append(all, cands...)
	}
	now := in.now()
	for _, c := range all {
		if err := c.prepare(ctx, now); err != nil {
			return nil, 0, err
		}
	}
	return all, ignored, nil
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

// prepare validates the skill and fills in its lock entry.
func (c *candidate) prepare(ctx context.Context, now time.Time) error {
	// Validated under the folder name it will be installed as.
	c.res = validate.Dir(c.dir, validate.Options{Profile: validate.ProfileDefault, DirName: c.name})
	if c.res.HasErrors() {
		fs := make([]validate.Finding, len(c.res.Findings))
		for i, f := range c.res.Findings {
			f.File = relFile(filepath.Dir(c.dir), f.File)
			fs[i] = f
		}
		name := c.name
		if name == "" {
			name = c.rel
		}
		if name == "" {
			name = "at the top"
		}
		return &InvalidError{Source: c.src.arg, Skill: name, Findings: fs}
	}
	if err := checkName(c.name); err != nil {
		return fmt.Errorf("%s: %w", c.src.arg, err)
	}
	s, err := skill.Load(c.dir, skill.LoadOptions{DropBody: true})
	if err != nil {
		return fmt.Errorf("%s: %w", c.src.arg, err)
	}
	files, err := skill.Files(c.dir)
	if err != nil {
		return err
	}
	tree, err := TreeSHA256(ctx, c.dir)
	if err != nil {
		return err
	}
	mdSum, err := fileSHA256(ctx, s.File, make([]byte, 32<<10))
	if err != nil {
		return err
	}
	c.entry = LockEntry{
		Version:         now.Format("20060102-150405"),
		DeclaredVersion: s.Exec.Version,
		Source:          SourceRef{Kind: c.src.kind, Location: c.src.location, SHA256: c.src.sha256},
		InstalledAt:     now.Format(time.RFC3339),
		SkillMdSha256:   mdSum,
		TreeSha256:      tree,
		FileInventory:   skill.Inventory(files),
	}
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

// checkConflicts applies the conflict rules of SPEC §6 against root.
func (in *Installer) checkConflicts(root string, cands []*candidate) error {
	lock, err := ReadLock(root)
	if err != nil {
		return err
	}
	// Names equal under Unicode normalisation (NFKC) are one name: a second
	// folder that looks the same is refused, --force or not.
	keys := map[string]string{}
	if ents, err := os.ReadDir(root); err == nil {
		for _, e := range ents {
			if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
				keys[skill.NameKey(e.Name())] = e.Name()
			}
		}
	}
	for _, c := range cands {
		k := skill.NameKey(c.name)
		if other, ok := keys[k]; ok && other != c.name {
			return fmt.Errorf("%s: %w: the name %q is the same as %q (in %s) after Unicode normalisation (NFKC); rename one of them", c.src.arg, ErrConflict, c.name, other, root)
		}
		keys[k] = c.name
	}
	for _, c := range cands {
		dest := filepath.Join(root, c.name)
		_, err := os.Lstat(dest)
		if err != nil {
			continue
		}
		c.existing = true
		if in.Force {
			continue
		}
		e, managed := lock.Skills[c.name]
		switch {
		case !managed:
			return fmt.Errorf("%s: %w: %s exists and was not installed by skillctl", c.src.arg, ErrConflict, dest)
		case e.Source.Kind != c.src.kind || e.Source.Location != c.src.location:
			return fmt.Errorf("%s: %w: %s was installed from %s, not from %s", c.src.arg, ErrConflict, dest, e.Source.Location, c.src.location)
		}
	}
	return nil
}
