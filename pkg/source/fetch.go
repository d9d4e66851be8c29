package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillctl/skillctl/pkg/config"
	"github.com/skillctl/skillctl/pkg/skill"
)

// ErrGitMissing: the git binary is not installed.
var ErrGitMissing = errors.New("git is not installed")

// Fetched is a git source checked out into a folder.
type Fetched struct {
	// Dir is the checkout; Root is Dir joined with the sub path (where
	// the skills are).
	Dir, Root string
	// Ref is the ref as resolved from a tree URL (else as asked).
	Ref string
	// Commit is the full SHA that was checked out.
	Commit string
	// Subdir is the sub path, slash-separated ("" for the top).
	Subdir string
}

// FetchOptions tune Fetch.
type FetchOptions struct {
	// Timeout bounds each git command (default config.DefaultGitTimeout).
	Timeout time.Duration
	// Env is added to the environment git runs in (tests point
	// GIT_CONFIG_GLOBAL at insteadOf rules).
	Env []string
}

// gitConfig is what every git command runs with: no hooks, no LFS
// download, no submodules, no fsmonitor, no interactive prompt.
var gitConfig = []string{
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.fsmonitor=false",
	"-c", "advice.detachedHead=false",
	"-c", "submodule.recurse=false",
	"-c", "filter.lfs.smudge=",
	"-c", "filter.lfs.process=",
	"-c", "filter.lfs.required=false",
	"-c", "protocol.ext.allow=never",
}

// newRunner runs git in dir with the environment every git command of
// skillctl gets: no prompt (nor ssh's), no LFS download, C messages (which
// classify reads), then o.Env.
func newRunner(bin, dir string, o FetchOptions) *runner {
	if o.Timeout <= 0 {
		o.Timeout = config.DefaultGitTimeout
	}
	env := append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", "GIT_LFS_SKIP_SMUDGE=1",
		"LC_ALL=C", "LANG=C")
	if os.Getenv("GIT_SSH_COMMAND") == "" && os.Getenv("GIT_SSH") == "" {
		env = append(env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes") // no password prompt
	}
	return &runner{git: bin, dir: dir, env: append(env, o.Env...), timeout: o.Timeout}
}

type runner struct {
	git     string
	dir     string
	env     []string
	timeout time.Duration
}

// run runs git with args in r.dir and returns its stdout; stderr is in
// the error.
func (r *runner) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	c := exec.CommandContext(ctx, r.git, append(append([]string(nil), gitConfig...), args...)...)
	c.Dir = r.dir
	c.Env = r.env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	c.Stdin = nil
	killGroup(c)
	err := c.Run()
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return "", &gitRunError{args: args, timeout: r.timeout}
		}
		if cerr := ctx.Err(); cerr != nil {
			return "", cerr
		}
		return "", &gitRunError{args: args, stderr: strings.TrimSpace(errb.String()), err: err}
	}
	return out.String(), nil
}

type gitRunError struct {
	args    []string
	stderr  string
	err     error
	timeout time.Duration
}

func (e *gitRunError) Error() string {
	if e.timeout > 0 {
		return fmt.Sprintf("git %s took longer than %v (config git.timeout)", e.args[0], e.timeout)
	}
	if e.stderr != "" {
		return "git " + e.args[0] + ": " + lastLines(e.stderr, 3)
	}
	return fmt.Sprintf("git %s: %v", e.args[0], e.err)
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// Fetch checks g out into dir (created, and left for the caller to
// remove): a shallow, partial clone of the one commit, sparse to the sub
// path, where the server allows; a commit SHA that cannot be fetched alone
// is found with a full fetch. Errors say what happened in one sentence:
// git missing, repository not found, authentication needed, ref not found
// (with the nearest names), no such path (with the skill paths that exist).
func (g *Git) Fetch(ctx context.Context, dir string, o FetchOptions) (*Fetched, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("%w: install git, or install the skills from an archive of the repository (a .zip or .tar.gz)", ErrGitMissing)
	}
	r := newRunner(bin, dir, o)
	ref, subdir := g.Ref, strings.Trim(g.Subdir, "/")
	if g.tree != nil {
		if ref, subdir, err = g.splitTree(ctx, r); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if _, err := r.run(ctx, "init", "-q"); err != nil {
		return nil, err
	}
	if _, err := r.run(ctx, "remote", "add", "origin", g.URL); err != nil {
		return nil, err
	}
	want := ref
	if want == "" {
		want = "HEAD"
	}
	_, err = r.run(ctx, "fetch", "-q", "--depth", "1", "--filter=blob:none", "--no-tags", "origin", want)
	if err != nil && IsSHA(ref) && !isFatalRemote(err) && ctx.Err() == nil {
		// A server that does not serve a commit by its SHA: fetch everything.
		_, err = r.run(ctx, "fetch", "-q", "--filter=blob:none", "--tags", "origin", "+refs/heads/*:refs/remotes/origin/*")
		if err == nil {
			if _, cerr := r.run(ctx, "cat-file", "-e", ref+"^{commit}"); cerr != nil {
				return nil, skill.Mark(fmt.Errorf("%s: no commit %s in %s", g.Arg, ref, g.Display()), skill.ErrNotFound)
			}
			want = ref
		}
	} else if err == nil {
		want = "FETCH_HEAD"
	}
	if err != nil {
		return nil, g.explain(ctx, r, ref, err)
	}
	if err := sparseToSkills(ctx, r, dir, want, subdir); err != nil {
		return nil, err
	}
	if _, err := r.run(ctx, "checkout", "-q", "--detach", want); err != nil {
		return nil, g.explain(ctx, r, ref, err)
	}
	commit, err := r.run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	f := &Fetched{Dir: dir, Root: dir, Ref: ref, Commit: strings.TrimSpace(commit), Subdir: subdir}
	if subdir != "" {
		f.Root = filepath.Join(dir, filepath.FromSlash(subdir))
		if fi, err := os.Stat(f.Root); err != nil || !fi.IsDir() {
			return nil, g.noPath(ctx, r, subdir, f.Commit)
		}
	}
	return f, nil
}

// sparseToSkills makes the checkout sparse to the skill folders below the
// sub path (the outermost folders holding a SKILL.md, which are all that
// install takes), so that a partial clone downloads only their files. A
// skill at the sub path itself (or at the top) needs all of it.
func sparseToSkills(ctx context.Context, r *runner, dir, commit, subdir string) error {
	// -z: paths as they are (not quoted), one per NUL
	out, err := r.run(ctx, "ls-tree", "-r", "-z", "--name-only", commit)
	if err != nil {
		return nil // the checkout will say what is wrong
	}
	prefix := ""
	if subdir != "" {
		prefix = subdir + "/"
	}
	var dirs []string
	for _, p := range strings.Split(out, "\x00") {
		base := path.Base(p)
		if (base != "SKILL.md" && base != "skill.md") || !strings.HasPrefix(p, prefix) {
			continue
		}
		d := path.Dir(p)
		if d == "." || d+"/" == prefix {
			dirs = nil // a skill at the root: everything below it
			break
		}
		dirs = append(dirs, d)
	}
	var patterns []string
	switch {
	case len(dirs) > 0:
		sort.Strings(dirs)
		var kept []string
		for _, d := range dirs {
			if len(kept) > 0 && strings.HasPrefix(d+"/", kept[len(kept)-1]+"/") {
				continue // inside a skill already kept
			}
			kept = append(kept, d)
		}
		for _, d := range kept {
			patterns = append(patterns, "/"+d+"/")
		}
	case subdir != "":
		patterns = []string{"/" + subdir + "/"}
	default:
		return nil
	}
	if _, err := r.run(ctx, "config", "core.sparseCheckout", "true"); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".git", "info", "sparse-checkout"), []byte(strings.Join(patterns, "\n")+"\n"), 0o644)
}

// isFatalRemote reports errors no other fetch would mend.
func isFatalRemote(err error) bool {
	k := classify(err)
	return k == kindNoRepo || k == kindAuth
}

const (
	kindNoRepo = "no-repo"
	kindAuth   = "auth"
	kindNoRef  = "no-ref"
)

// classify reads git's message (LC_ALL=C) for what went wrong.
func classify(err error) string {
	var ge *gitRunError
	if !errors.As(err, &ge) {
		return ""
	}
	s := strings.ToLower(ge.stderr)
	has := func(subs ...string) bool {
		for _, sub := range subs {
			if strings.Contains(s, sub) {
				return true
			}
		}
		return false
	}
	// Paths in the message may hold any digits: HTTP statuses are matched
	// with the words git prints around them.
	switch {
	case has("repository not found", "does not appear to be a git repository", "returned error: 404",
		"http 404", "error: 404"), has("fatal: repository '") && has("' not found"):
		return kindNoRepo
	case has("authentication failed", "could not read username", "could not read password",
		"terminal prompts disabled", "permission denied (publickey", "http basic: access denied",
		"returned error: 401", "returned error: 403", "http 401", "http 403"):
		return kindAuth
	case has("couldn't find remote ref", "not our ref", "unable to read tree", "reference is not a tree",
		"bad object"), has("pathspec") && has("did not match"):
		return kindNoRef
	}
	return ""
}

// explain turns a failed fetch or checkout into one sentence.
func (g *Git) explain(ctx context.Context, r *runner, ref string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	switch classify(err) {
	case kindNoRepo:
		return skill.Mark(fmt.Errorf("%s: repository not found: %s (check the name; a private repository needs your git credentials)",
			g.Arg, g.Display()), skill.ErrNotFound)
	case kindAuth:
		return fmt.Errorf("%s: %s needs authentication: set up a git credential helper or an SSH key for it, or point it at a mirror with git config url.<mirror>.insteadOf (git ran without prompting)",
			g.Arg, g.Display())
	case kindNoRef:
		return g.noRef(ctx, r, ref)
	}
	return fmt.Errorf("%s: %w", g.Arg, err)
}

// noRef says a ref is not in the repository, with the nearest names.
func (g *Git) noRef(ctx context.Context, r *runner, ref string) error {
	names, _ := remoteRefs(ctx, r, g.URL)
	msg := fmt.Sprintf("%s: no branch, tag or commit %q in %s", g.Arg, ref, g.Display())
	if ref == "" {
		msg = fmt.Sprintf("%s: %s has no default branch (its HEAD names no branch); give one with --ref", g.Arg, g.Display())
	}
	if near := skill.Closest(ref, names); ref != "" && len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	} else if len(names) > 0 {
		sort.Strings(names)
		if len(names) > 8 {
			names = append(names[:8], "…")
		}
		msg += " (it has " + strings.Join(names, ", ") + ")"
	}
	return skill.Mark(errors.New(msg), skill.ErrNotFound)
}

// noPath says the sub path is not in the commit, with the skill folders
// that are.
func (g *Git) noPath(ctx context.Context, r *runner, subdir, commit string) error {
	out, _ := r.run(ctx, "ls-tree", "-r", "-z", "--name-only", commit)
	var skills []string
	for _, l := range strings.Split(out, "\x00") {
		if l == "SKILL.md" {
			skills = append(skills, ".")
		} else if strings.HasSuffix(l, "/SKILL.md") {
			skills = append(skills, strings.TrimSuffix(l, "/SKILL.md"))
		}
	}
	msg := fmt.Sprintf("%s: no folder %s in %s at %.12s", g.Arg, subdir, g.Display(), commit)
	switch {
	case len(skills) == 0:
		msg += "; the repository holds no SKILL.md"
	default:
		if near := skill.Closest(subdir, skills); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		} else {
			if len(skills) > 10 {
				skills = append(skills[:10], "…")
			}
			msg += "; its skills are in " + strings.Join(skills, ", ")
		}
	}
	return skill.Mark(errors.New(msg), skill.ErrNotFound)
}

// remoteRefs lists the branch and tag names of url.
func remoteRefs(ctx context.Context, r *runner, url string) ([]string, error) {
	out, err := r.run(ctx, "ls-remote", "--heads", "--tags", url)
	if err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		_, ref, ok := strings.Cut(l, "\t")
		if !ok {
			continue
		}
		ref = strings.TrimSuffix(ref, "^{}")
		ref = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/")
		if !seen[ref] {
			seen[ref] = true
			names = append(names, ref)
		}
	}
	return names, nil
}

// splitTree tells the ref and the sub path of a tree URL apart: the
// longest leading run of segments that names a branch or tag, or a commit
// SHA.
func (g *Git) splitTree(ctx context.Context, r *runner) (string, string, error) {
	if IsSHA(g.tree[0]) {
		return g.tree[0], strings.Join(g.tree[1:], "/"), nil
	}
	names, err := remoteRefs(ctx, &runner{git: r.git, dir: os.TempDir(), env: r.env, timeout: r.timeout}, g.URL)
	if err != nil {
		return "", "", g.explain(ctx, r, g.tree[0], err)
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for i := len(g.tree); i > 0; i-- {
		if ref := strings.Join(g.tree[:i], "/"); have[ref] {
			return ref, strings.Join(g.tree[i:], "/"), nil
		}
	}
	msg := fmt.Sprintf("%s: no branch or tag %q in %s", g.Arg, g.tree[0], g.Display())
	if near := skill.Closest(g.tree[0], names); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return "", "", skill.Mark(errors.New(msg), skill.ErrNotFound)
}

// Remote is what a repository's ref points at now.
type Remote struct {
	// Commit is the SHA the ref (or the default branch) points at.
	Commit string
	// Tag is set when the ref is a tag (a pin: tags are not expected to move).
	Tag bool
}

// Resolve asks the repository what ref points at now (`git ls-remote`),
// without fetching: the default branch when ref is "". A full commit SHA
// resolves to itself, a pin.
func Resolve(ctx context.Context, url, ref string, o FetchOptions) (*Remote, error) {
	if IsSHA(ref) {
		return &Remote{Commit: ref}, nil
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("%w: install git to check git sources", ErrGitMissing)
	}
	r := newRunner(bin, os.TempDir(), o)
	g := &Git{Arg: Redact(url), URL: url}
	want := []string{"HEAD"}
	if ref != "" {
		want = []string{"refs/heads/" + ref, "refs/tags/" + ref, "refs/tags/" + ref + "^{}"}
	}
	out, err := r.run(ctx, append([]string{"ls-remote", url}, want...)...)
	if err != nil {
		return nil, g.explain(ctx, r, ref, err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if sha, name, ok := strings.Cut(l, "\t"); ok {
			got[name] = sha
		}
	}
	switch {
	case ref == "" && got["HEAD"] != "":
		return &Remote{Commit: got["HEAD"]}, nil
	case got["refs/heads/"+ref] != "":
		return &Remote{Commit: got["refs/heads/"+ref]}, nil
	case got["refs/tags/"+ref+"^{}"] != "":
		return &Remote{Commit: got["refs/tags/"+ref+"^{}"], Tag: true}, nil
	case got["refs/tags/"+ref] != "":
		return &Remote{Commit: got["refs/tags/"+ref], Tag: true}, nil
	}
	return nil, g.noRef(ctx, r, ref)
}
