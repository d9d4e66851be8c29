// Package source recognises the SOURCE forms of SPEC §12 that are not a
// path on disk or an archive download — GitHub shorthands, tree URLs and
// git URLs — and fetches them with the git binary into a folder, so that
// install can take them as it takes a folder.
package source

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// Git is a git source: the repository, the ref asked for and the sub path
// of the skills in it.
type Git struct {
	// Arg is the SOURCE as given.
	Arg string
	// URL is what git fetches: a shorthand expanded, #REF removed.
	URL string
	// Ref is a branch, a tag or a full commit SHA ("" for the default branch).
	Ref string
	// Subdir is the slash-separated path of the skills in the repository
	// ("" for the top).
	Subdir string
	// tree holds the segments after /tree/ of a tree URL, where the ref
	// (which may hold slashes) and the sub path are told apart against
	// the repository's refs.
	tree []string
}

// Pin makes g fetch commit from the sub path subdir, whatever ref and
// path its form named (a restore from a lock).
func (g *Git) Pin(commit, subdir string) {
	g.Ref, g.Subdir, g.tree = commit, strings.Trim(subdir, "/"), nil
}

// Display is the URL without credentials, for messages and the lock.
func (g *Git) Display() string { return Redact(g.URL) }

// Redact removes the user and password from a URL.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

var (
	// owner/repo[/sub/path][@ref]: GitHub's names for owners and repositories.
	shorthand = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9-]*)/([A-Za-z0-9._-]+)((?:/[^@\s]+)*)(?:@(\S+))?$`)
	// git@host:owner/repo.git
	scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$`)
	fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// IsSHA reports whether ref is a full commit SHA.
func IsSHA(ref string) bool { return fullSHA.MatchString(ref) }

// ParseGit recognises a git SOURCE, in SPEC §12's order after paths and
// archive URLs: a GitHub shorthand (owner/repo, owner/repo/sub/path,
// owner/repo@ref, github:owner/repo), a tree URL (GitHub's /tree/REF/path,
// GitLab's /-/tree/REF/path), or a git URL (https://host/x.git,
// git+https://, ssh://, git@host:o/r.git, file://, each with an optional
// #REF). ok is false when arg is none of these; err is set when it is one,
// but malformed.
func ParseGit(arg string) (g *Git, ok bool, err error) {
	s := strings.TrimSpace(arg)
	if strings.HasPrefix(s, "github:") {
		m := shorthand.FindStringSubmatch(strings.TrimPrefix(s, "github:"))
		if m == nil {
			return nil, true, fmt.Errorf("%s: write github:OWNER/REPO[/PATH][@REF]", arg)
		}
		return fromShorthand(arg, m), true, nil
	}
	if scpLike.MatchString(s) && !strings.Contains(s, "://") {
		u, ref, _ := strings.Cut(s, "#")
		return &Git{Arg: arg, URL: u, Ref: ref}, true, nil
	}
	if i := strings.Index(s, "://"); i > 0 {
		return parseURL(arg, s)
	}
	if m := shorthand.FindStringSubmatch(s); m != nil && !strings.HasPrefix(s, ".") {
		return fromShorthand(arg, m), true, nil
	}
	return nil, false, nil
}

func fromShorthand(arg string, m []string) *Git {
	repo := strings.TrimSuffix(m[2], ".git")
	return &Git{Arg: arg, URL: "https://github.com/" + m[1] + "/" + repo + ".git",
		Subdir: strings.Trim(m[3], "/"), Ref: m[4]}
}

// knownHosts serve repositories at https://HOST/OWNER/REPO without .git.
var knownHosts = map[string]bool{"github.com": true, "gitlab.com": true, "codeberg.org": true, "bitbucket.org": true}

func parseURL(arg, s string) (*Git, bool, error) {
	raw, ref, _ := strings.Cut(s, "#")
	scheme := strings.ToLower(raw[:strings.Index(raw, "://")])
	forced := false
	switch scheme {
	case "git+https", "git+http", "git+ssh", "git+file":
		raw = raw[len("git+"):]
		scheme = scheme[len("git+"):]
		forced = true
	case "ssh", "git", "file":
	case "https", "http":
	default:
		return nil, false, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, true, fmt.Errorf("%s: not a valid URL: %v", Redact(arg), errors.Unwrap(err))
	}
	if forced || (scheme != "https" && scheme != "http") {
		return &Git{Arg: arg, URL: raw, Ref: ref}, true, nil
	}
	p := strings.Trim(u.Path, "/")
	segs := strings.Split(p, "/")
	// https://gitlab.com/group/sub/repo/-/tree/REF/path
	if i := indexOf(segs, "-"); i >= 2 && i+1 < len(segs) && (segs[i+1] == "tree" || segs[i+1] == "blob") {
		return treeURL(arg, u, segs[:i], segs[i+2:], ref)
	}
	// https://github.com/owner/repo/tree/REF/path
	if len(segs) >= 3 && (segs[2] == "tree" || segs[2] == "blob") && knownHosts[strings.ToLower(u.Hostname())] {
		return treeURL(arg, u, segs[:2], segs[3:], ref)
	}
	if strings.HasSuffix(p, ".git") || (knownHosts[strings.ToLower(u.Hostname())] && len(segs) == 2) {
		if !strings.HasSuffix(p, ".git") {
			u.Path = "/" + p + ".git"
		}
		return &Git{Arg: arg, URL: u.String(), Ref: ref}, true, nil
	}
	return nil, false, nil
}

func treeURL(arg string, u *url.URL, repo, rest []string, ref string) (*Git, bool, error) {
	if len(rest) == 0 || rest[0] == "" {
		return nil, true, fmt.Errorf("%s: the tree URL names no branch, tag or commit", Redact(arg))
	}
	if ref != "" {
		return nil, true, fmt.Errorf("%s: a tree URL carries its ref; drop #%s", Redact(arg), ref)
	}
	r := *u
	r.Path = "/" + path.Join(repo...) + ".git"
	r.RawQuery, r.Fragment = "", ""
	return &Git{Arg: arg, URL: r.String(), tree: rest}, true, nil
}

func indexOf(segs []string, s string) int {
	for i, x := range segs {
		if x == s {
			return i
		}
	}
	return -1
}

// Insecure reports whether a SOURCE is fetched over plain http from a host
// that is not this machine (http:// is accepted, for a mirror on the local
// network, with a warning).
func Insecure(arg string) bool {
	s := strings.TrimPrefix(strings.TrimSpace(arg), "git+")
	if len(s) < 7 || !strings.EqualFold(s[:7], "http://") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil {
		return true
	}
	h := u.Hostname()
	if h == "localhost" {
		return false
	}
	ip := net.ParseIP(h)
	return ip == nil || !ip.IsLoopback()
}
