package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillctl/skillctl/pkg/archive"
	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/skillctl/skillctl/pkg/skilltree"
	gitsource "github.com/skillctl/skillctl/pkg/source"
)

// Download defaults.
const (
	DefaultDownloadTimeout = 5 * time.Minute
	DefaultMaxDownload     = 512 << 20
	maxRedirects           = 5
)

// Errors about checksums.
var (
	// ErrChecksum: the source's sha256 is not the one asked for.
	ErrChecksum = errors.New("sha256 mismatch")
	// ErrChecksumUse: a checksum was given where none applies (a folder,
	// several sources, not 64 hex digits).
	ErrChecksumUse = errors.New("cannot check this sha256")
)

// source is one SOURCE argument made ready to stage.
type source struct {
	arg      string
	kind     string
	path     string // archive file or folder on disk (a temp file for URLs)
	location string // what the lock file records
	sha256   string
	format   archive.Format
	temp     string // removed when done
	tempDir  string // removed, with all it holds, when done
	// gitURL, ref, commit and subdir: where a git source was fetched.
	gitURL, ref, commit, subdir string
	// digests are the index digests of a well-known source's skills, by
	// their folder in the source (recorded as each skill's sha256).
	digests map[string]string
	// rels are the skill folders of a folder source (relative, slash
	// separated, "" for the top), found by skilltree before it is staged.
	rels []string
	// skipped are the links of a folder source that were not followed.
	skipped []Skipped
}

// baseName is the name a skill at the top of the source takes when its
// SKILL.md declares none: the folder's name, or the archive's without its
// extensions.
func (s *source) baseName() string {
	base := filepath.Base(s.path)
	if s.kind == KindGit && s.subdir == "" {
		base = strings.TrimSuffix(path.Base(strings.TrimSuffix(s.gitURL, "/")), ".git")
	}
	if s.kind == KindURL {
		if u, err := url.Parse(s.location); err == nil {
			base = path.Base(u.Path)
		}
	}
	if s.kind != KindPath && s.kind != KindGit {
		for _, ext := range []string{".gz", ".tgz", ".bz2", ".xz", ".zst", ".tar", ".zip", ".skill"} {
			base = strings.TrimSuffix(base, ext)
		}
	}
	return base
}

func (s *source) cleanup() {
	if s.temp != "" {
		os.Remove(s.temp)
	}
	if s.tempDir != "" {
		os.RemoveAll(s.tempDir)
	}
}

func isURL(arg string) bool {
	l := strings.ToLower(arg)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// openSource identifies arg in SPEC §12's order: an existing path (a
// folder, a SKILL.md, or an archive file recognised by its content), an
// http(s) URL (a git repository when it names one, else downloaded as an
// archive), or a git source (a shorthand, a tree URL, a git URL), fetched.
func (in *Installer) openSource(ctx context.Context, arg string) (*source, error) {
	if isURL(arg) {
		if g, ok, err := gitsource.ParseGit(arg); ok || err != nil {
			if err != nil {
				return nil, err
			}
			return in.fetchGit(ctx, g)
		}
		if in.Ref != "" || in.Subdir != "" {
			return nil, fmt.Errorf("%s: --ref and --subdir apply to git sources; this URL is downloaded as an archive", gitsource.Redact(arg))
		}
		if idx, ok := wellKnownURL(arg); ok {
			if in.SHA256 != "" {
				return nil, fmt.Errorf("%s: %w: a skills index carries a digest for each skill", gitsource.Redact(arg), ErrChecksumUse)
			}
			return in.wellKnown(ctx, idx)
		}
		return in.download(ctx, arg)
	}
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(in.Cwd, p)
	}
	p = filepath.Clean(p)
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		if g, ok, gerr := gitsource.ParseGit(arg); ok || gerr != nil {
			if gerr != nil {
				return nil, gerr
			}
			return in.fetchGit(ctx, g)
		}
		return nil, skill.Mark(fmt.Errorf("%s: no such file or folder", arg), skill.ErrNotFound)
	}
	if err == nil && (in.Ref != "" || in.Subdir != "") {
		return nil, fmt.Errorf("%s: --ref and --subdir apply to git sources, not to a path on disk", arg)
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() && skilltree.IsSkillFile(filepath.Base(p)) {
		// A SKILL.md names the skill of its folder.
		if in.SHA256 != "" {
			return nil, fmt.Errorf("%s: %w: a checksum applies to an archive or a download, not a SKILL.md", arg, ErrChecksumUse)
		}
		dir := filepath.Dir(p)
		return &source{arg: arg, kind: KindPath, path: dir, location: dir, rels: []string{""}}, nil
	}
	if fi.IsDir() {
		if in.SHA256 != "" {
			return nil, fmt.Errorf("%s: %w: a checksum applies to an archive or a download, not a folder", arg, ErrChecksumUse)
		}
		return &source{arg: arg, kind: KindPath, path: p, location: p}, nil
	}
	s := &source{arg: arg, kind: KindArchive, path: p, location: p}
	if err := s.identifyAndHash(ctx, in.SHA256); err != nil {
		return nil, err
	}
	return s, nil
}

// identifyAndHash checks the content is an accepted archive and its sha256
// is the one asked for, before anything is unpacked.
func (s *source) identifyAndHash(ctx context.Context, want string) error {
	f, err := os.Open(s.path)
	if err != nil {
		return err
	}
	defer f.Close()
	format, err := archive.Identify(ctx, f)
	if err != nil {
		return fmt.Errorf("%s: %w", s.arg, err)
	}
	s.format = format
	if s.sha256 == "" {
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return fmt.Errorf("%s: %w", s.arg, err)
		}
		s.sha256 = hex.EncodeToString(h.Sum(nil))
	}
	if want != "" && !strings.EqualFold(want, s.sha256) {
		return fmt.Errorf("%s: %w: the archive's sha256 is %s, not the expected %s; nothing was installed", s.arg, ErrChecksum, s.sha256, strings.ToLower(want))
	}
	return nil
}

// download streams a URL to a temp file, capped in size and time, with at
// most a few redirects, hashing it on the way.
func (in *Installer) download(ctx context.Context, raw string) (*source, error) {
	file, sum, location, err := in.fetchURL(ctx, raw)
	if err != nil {
		return nil, err
	}
	s := &source{arg: location, kind: KindURL, path: file, location: location, temp: file, sha256: sum}
	if err := s.identifyAndHash(ctx, in.SHA256); err != nil {
		s.cleanup()
		return nil, err
	}
	return s, nil
}

// fetchURL downloads raw into a temp file (the caller removes it), within
// the download limit and timeout, and returns its sha256 and the URL
// without credentials.
func (in *Installer) fetchURL(ctx context.Context, raw string) (file, sum, loc string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", "", "", fmt.Errorf("%s: not a valid URL", raw)
	}
	location := *u
	location.User = nil // never write credentials to the lock file
	client := in.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	c := *client
	if c.Timeout == 0 {
		c.Timeout = in.DownloadTimeout
		if c.Timeout == 0 {
			c.Timeout = DefaultDownloadTimeout
		}
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if req.URL.Scheme != "https" && req.URL.Scheme != "http" {
			return fmt.Errorf("redirect to %s is not http(s)", req.URL.Scheme)
		}
		if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect from https to %s refused", req.URL)
		}
		return nil
	}
	max := in.MaxDownloadBytes
	if max == 0 {
		max = DefaultMaxDownload
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return "", "", "", fmt.Errorf("%s: %w", location.String(), err)
	}
	req.Header.Set("User-Agent", "skillctl")
	resp, err := c.Do(req)
	if err != nil {
		return "", "", "", fmt.Errorf("download %s: %w", location.String(), describeNetError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("download %s: server answered %s", location.String(), resp.Status)
		if resp.StatusCode == http.StatusNotFound {
			err = skill.Mark(err, skill.ErrNotFound)
		}
		return "", "", "", err
	}
	if max > 0 && resp.ContentLength > max {
		return "", "", "", fmt.Errorf("download %s: %w: %d bytes, more than the download limit of %d", location.String(), archive.ErrLimit, resp.ContentLength, max)
	}
	f, err := os.CreateTemp("", "skillctl-download-*")
	if err != nil {
		return "", "", "", err
	}
	h := sha256.New()
	var body io.Reader = resp.Body
	if max > 0 {
		body = io.LimitReader(resp.Body, max+1)
	}
	n, err := io.Copy(io.MultiWriter(f, h), body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", "", "", fmt.Errorf("download %s: %w", location.String(), describeNetError(err))
	}
	if max > 0 && n > max {
		os.Remove(f.Name())
		return "", "", "", fmt.Errorf("download %s: %w: more than the download limit of %d bytes", location.String(), archive.ErrLimit, max)
	}
	return f.Name(), hex.EncodeToString(h.Sum(nil)), location.String(), nil
}

func describeNetError(err error) error {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("timed out (%v)", err)
	}
	return err
}

// fetchGit checks a git source out into a temp folder and makes it a
// folder source that remembers the repository, ref, commit and sub path.
func (in *Installer) fetchGit(ctx context.Context, g *gitsource.Git) (*source, error) {
	if in.SHA256 != "" {
		return nil, fmt.Errorf("%s: %w: a checksum applies to an archive or a download; a git source is pinned by its commit (--ref SHA)", g.Arg, ErrChecksumUse)
	}
	if in.AtCommit != "" {
		// a restore: the recorded commit and sub path, whatever the form says
		g.Pin(in.AtCommit, in.Subdir)
	} else if in.Ref != "" {
		if g.Ref != "" && g.Ref != in.Ref {
			return nil, fmt.Errorf("%s names the ref %s and --ref says %s: give one", g.Arg, g.Ref, in.Ref)
		}
		g.Ref = in.Ref
	}
	if sub := strings.Trim(filepath.ToSlash(in.Subdir), "/"); sub != "" && in.AtCommit == "" {
		if g.Subdir != "" && g.Subdir != sub {
			return nil, fmt.Errorf("%s names the path %s and --subdir says %s: give one", g.Arg, g.Subdir, sub)
		}
		if !filepath.IsLocal(filepath.FromSlash(sub)) {
			return nil, fmt.Errorf("--subdir %s: give a path inside the repository", in.Subdir)
		}
		g.Subdir = sub
	}
	tmp, err := os.MkdirTemp("", "skillctl-git-")
	if err != nil {
		return nil, err
	}
	f, err := g.Fetch(ctx, filepath.Join(tmp, "checkout"), gitsource.FetchOptions{Timeout: in.GitTimeout, Env: in.GitEnv})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	loc := gitsource.Redact(strings.TrimSpace(g.Arg))
	return &source{arg: loc, kind: KindGit, path: f.Root, location: loc, tempDir: tmp,
		gitURL: g.Display(), ref: f.Ref, commit: f.Commit, subdir: f.Subdir}, nil
}
