package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillctl/skillctl/internal/ctxio"
)

// TreeSHA256 is the canonical digest of a skill folder (SPEC §12): the
// sha256 of one line per file and symlink, sorted by slash path (bytewise),
//
//	<mode> <sha256> <path>\n
//
// where mode is 0644, 0755 (any execute bit) or symlink, and sha256 is of
// the file's content or the link's target. Folders, times and owners do
// not count, so the same files give the same digest on any machine and
// from any source. It stops with ctx.Err() when ctx is cancelled.
func TreeSHA256(ctx context.Context, dir string) (string, error) {
	m, err := treeManifest(ctx, dir)
	if err != nil {
		return "", err
	}
	return m.sum(), nil
}

// manifest is a folder's entries as TreeSHA256 sees them: one line per
// slash path, and the modification time of each file.
type manifest struct {
	lines map[string]string
	mtime map[string]time.Time
	canon string
}

func treeManifest(ctx context.Context, dir string) (*manifest, error) {
	m := &manifest{lines: map[string]string{}, mtime: map[string]time.Time{}}
	buf := make([]byte, 256<<10)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch t := d.Type(); {
		case t.IsDir():
			m.lines[rel] = "d " + rel + "/\n"
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m.lines[rel] = "l " + filepath.ToSlash(target) + " " + rel + "\n"
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			mode := "0644"
			if info.Mode()&0o111 != 0 {
				mode = "0755"
			}
			sum, err := fileSHA256(ctx, p, buf)
			if err != nil {
				return err
			}
			m.lines[rel] = "f " + mode + " " + sum + " " + rel + "\n"
			m.mtime[rel] = info.ModTime()
		default:
			return fmt.Errorf("%s: not a regular file, folder or symlink", p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// sum is the canonical digest (TreeSHA256).
func (m *manifest) sum() string {
	if m.canon == "" {
		h := sha256.New()
		for _, p := range m.paths() {
			l := m.lines[p]
			switch l[0] {
			case 'f': // f <mode> <sum> <path>
				io.WriteString(h, l[2:])
			case 'l': // l <target> <path>
				t := sha256.Sum256([]byte(l[2 : len(l)-len(p)-2]))
				io.WriteString(h, "symlink "+hex.EncodeToString(t[:])+" "+p+"\n")
			}
		}
		m.canon = hex.EncodeToString(h.Sum(nil))
	}
	return m.canon
}

// legacySum is the digest version 1 locks recorded: the same lines with
// folders, and symlink targets in the clear.
func (m *manifest) legacySum() string {
	h := sha256.New()
	for _, p := range m.paths() {
		io.WriteString(h, m.lines[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// matches reports whether a recorded digest is this tree's, in the
// canonical form or the one version 1 locks recorded.
func (m *manifest) matches(digest string) bool {
	return digest == m.sum() || digest == m.legacySum()
}

func (m *manifest) paths() []string {
	paths := make([]string, 0, len(m.lines))
	for p := range m.lines {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// describeChanges names what was edited in an installed skill whose files
// (cur) no longer match its lock entry. When the new files are the ones
// installed then (a reinstall), the difference from them is exact;
// otherwise (or with no staged folder) files modified after the install
// time are named.
func describeChanges(cur *manifest, e LockEntry, staged string) string {
	var changed, added, removed []string
	var nm *manifest
	if staged != "" { // "" (verify): no new files to compare with
		nm, _ = treeManifest(context.Background(), staged)
	}
	if nm != nil && nm.matches(e.TreeSha256) {
		changed, added, removed = treeDiff(nm, cur)
	} else if at, err := time.Parse(time.RFC3339, e.InstalledAt); err == nil {
		// The files were written at the install, or later by a restore
		// (which keeps the entry's install time): the oldest file tells.
		written := at
		for _, t := range cur.mtime {
			if t.After(at) && (written == at || t.Before(written)) {
				written = t
			}
		}
		for p, t := range cur.mtime {
			if t.After(written.Add(2 * time.Second)) {
				changed = append(changed, p)
			}
		}
	}
	return changeList(changed, added, removed, "its files differ from the installed ones")
}

// treeDiff names the files that differ from old to cur: changed (content
// or mode), added and removed (folders count only when added or removed).
func treeDiff(old, cur *manifest) (changed, added, removed []string) {
	for p, l := range cur.lines {
		switch ol, ok := old.lines[p]; {
		case !ok:
			added = append(added, p)
		case ol != l && !strings.HasSuffix(l, "/\n"):
			changed = append(changed, p)
		}
	}
	for p := range old.lines {
		if _, ok := cur.lines[p]; !ok {
			removed = append(removed, p)
		}
	}
	return changed, added, removed
}

// changeList says "changed: a, b; added: c; removed: d", at most ten names
// a kind, or none when there is nothing.
func changeList(changed, added, removed []string, none string) string {
	var parts []string
	list := func(what string, paths []string) {
		if len(paths) == 0 {
			return
		}
		sort.Strings(paths)
		if len(paths) > 10 {
			paths = append(paths[:10:10], fmt.Sprintf("and %d more", len(paths)-10))
		}
		parts = append(parts, what+": "+strings.Join(paths, ", "))
	}
	list("changed", changed)
	list("added", added)
	list("removed", removed)
	if len(parts) == 0 {
		return none
	}
	return strings.Join(parts, "; ")
}

func fileSHA256(ctx context.Context, p string, buf []byte) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, ctxio.Reader(ctx, f), buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
