package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillctl/skillctl/internal/atomicfs"
)

// The journal records, before anything in the target changes, what a
// commit is about to do, so that Recover can finish or undo it.
const journalName = "journal.json"

type journalOp struct {
	Op   string `json:"op"` // install or uninstall
	Name string `json:"name"`
	// Staged is the new skill folder inside the staging folder (install).
	Staged string     `json:"staged,omitempty"`
	Entry  *LockEntry `json:"entry,omitempty"`
}

type journal struct {
	// Lock is the lock file the ops are recorded in, and Prefix the
	// root's key in it ("" for a root's own lock; journals written
	// before locks had a scope have neither).
	Lock   string      `json:"lock,omitempty"`
	Prefix string      `json:"prefix,omitempty"`
	Ops    []journalOp `json:"ops"`
}

func (j journal) lockPath(root string) string {
	if j.Lock != "" {
		return j.Lock
	}
	return filepath.Join(root, LockFileName)
}

// errCrash, returned by a test fault, stops a commit on the spot as a
// killed process would: no rollback, no cleanup.
var errCrash = errors.New("simulated crash")

func (in *Installer) step(name string) error {
	if in.fault == nil {
		return nil
	}
	return in.fault(name)
}

// tx is one root's part of a commit: its staging folder and journal.
type tx struct {
	root, staging string
	j             journal
	// started: the journal is written, so the root may have changed.
	started bool
	done    bool
}

// installJournal is the journal that moves the staged skills into a root.
func installJournal(lock *scopeLock, prefix, staging string, cands []*candidate) journal {
	j := journal{Lock: lock.path, Prefix: prefix}
	for _, c := range cands {
		e := c.entry
		if c.recordOnly {
			j.Ops = append(j.Ops, journalOp{Op: "record", Name: c.folder, Entry: &e})
			continue
		}
		rel, _ := filepath.Rel(staging, c.dir)
		j.Ops = append(j.Ops, journalOp{Op: "install", Name: c.folder, Staged: filepath.ToSlash(rel), Entry: &e})
	}
	return j
}

// commitAll applies the journals of txs: each is written and its skills
// swapped into place, root by root; then each lock file is updated and
// written once; then the staging folders go. A failure before a lock is
// written puts every root back as it was; after, only clean-up is left.
// Any failure is finished or undone before commitAll returns; a simulated
// crash stops on the spot, for Recover to finish.
func commitAll(txs []*tx, locks map[string]*scopeLock, held heldLocks, step func(string) error) (err error) {
	written := map[string]bool{}
	defer func() {
		if err == nil || errors.Is(err, errCrash) {
			return
		}
		for i := len(txs) - 1; i >= 0; i-- {
			t := txs[i]
			if !t.started || t.done {
				// nothing of it reached the root (or all of it did)
				if rerr := removeStaging(t.staging); rerr != nil {
					err = fmt.Errorf("%w; recovering: %v", err, rerr)
				}
				continue
			}
			var rerr error
			if written[t.j.lockPath(t.root)] {
				rerr = recoverStaging(t.root, t.staging, held)
			} else {
				rerr = rollbackStaging(t.root, t.staging, t.j)
			}
			if rerr != nil {
				err = fmt.Errorf("%w; recovering: %v", err, rerr)
			}
		}
	}()
	for _, t := range txs {
		if err := step("staged"); err != nil {
			return err
		}
		data, err := json.MarshalIndent(t.j, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfs.WriteFile(filepath.Join(t.staging, journalName), data, 0o644); err != nil {
			return err
		}
		t.started = true
		if err := step("journal"); err != nil {
			return err
		}
		if err := swapAll(t, step); err != nil {
			return err
		}
		atomicfs.SyncDir(t.root)
	}
	var paths []string
	for _, t := range txs {
		p := t.j.lockPath(t.root)
		applyJournal(locks[p].Lock, t.j.Prefix, t.j.Ops)
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := locks[p].write(); err != nil {
			return err
		}
		written[p] = true
	}
	if err := step("lock"); err != nil {
		return err
	}
	// Done: the old skills and the journals go. Each journal goes first, so
	// that a crash while deleting leaves nothing to replay.
	for _, t := range txs {
		if err := os.Remove(filepath.Join(t.staging, journalName)); err != nil {
			return err
		}
		t.done = true
		if err := step("journal-removed"); err != nil {
			return err
		}
		if err := os.RemoveAll(t.staging); err != nil {
			return err
		}
	}
	return nil
}

// swapAll moves each skill of t's journal into place, or aside.
func swapAll(t *tx, step func(string) error) error {
	for _, op := range t.j.Ops {
		dest := filepath.Join(t.root, op.Name)
		switch op.Op {
		case "install":
			if err := atomicfs.SwapIn(filepath.Join(t.staging, filepath.FromSlash(op.Staged)), dest, filepath.Join(t.staging, "old", op.Name), func() error { return step("aside:" + op.Name) }); err != nil {
				return fmt.Errorf("move %s into place: %w", op.Name, err)
			}
			if err := step("swapped:" + op.Name); err != nil {
				return err
			}
		case "uninstall":
			if err := os.MkdirAll(filepath.Join(t.staging, "old"), 0o755); err != nil {
				return err
			}
			if err := os.Rename(dest, filepath.Join(t.staging, "old", op.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", dest, err)
			}
			if err := step("removed:" + op.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func applyJournal(lock *Lock, prefix string, ops []journalOp) {
	for _, op := range ops {
		k := joinKey(prefix, op.Name)
		switch op.Op {
		case "install", "record":
			lock.Set(k, op.Name, *op.Entry)
		case "uninstall":
			lock.Delete(k)
		}
	}
}

// Recover finishes or undoes whatever an interrupted install or uninstall
// left in root, and removes stale staging folders. Callers hold root's file
// lock; Run and Uninstall call it first thing.
func Recover(root string) error { return recoverRoot(root, nil) }

// recoverRoot is Recover for an operation holding the folder locks held.
func recoverRoot(root string, held heldLocks) error {
	names, err := readNames(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, n := range names {
		if !strings.HasPrefix(n, stagingPrefix) {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(root, n)); err == nil && fi.IsDir() {
			if err := recoverStaging(root, filepath.Join(root, n), held); err != nil {
				return err
			}
		}
	}
	return nil
}

// readNames lists the names in dir, unsorted, without a stat of each.
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// recoverStaging looks at one staging folder's journal. For each install:
// when the target holds the new tree, the lock gets its entry; when the old
// folder was moved aside and nothing replaced it, it goes back. For each
// uninstall: when the folder is gone, the lock loses its entry. Then the
// staging folder is deleted.
//
// The journal's lock file is updated under its folder's lock: held by the
// caller (held), else taken here; when another process holds it, the
// staging folder is left for a later run.
func recoverStaging(root, staging string, held heldLocks) error {
	data, err := os.ReadFile(filepath.Join(staging, journalName))
	if err != nil {
		// No journal: the commit never started (or had finished); the target
		// was not touched by this folder.
		return removeStaging(staging)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return removeStaging(staging) // a journal is renamed into place whole; a torn one was never used
	}
	lockPath := j.lockPath(root)
	if dir := filepath.Dir(lockPath); !held.holds(dir) {
		l := tryLockDir(dir)
		if l == nil {
			return nil // busy: another process holds it; a later run finishes this
		}
		defer l.release()
	}
	lock, err := readLockAt(lockPath)
	if err != nil {
		return err
	}
	var done []journalOp
	for _, op := range j.Ops {
		dest := filepath.Join(root, op.Name)
		_, statErr := os.Lstat(dest)
		exists := statErr == nil
		switch op.Op {
		case "install":
			if op.Entry == nil {
				continue
			}
			if exists {
				if tree, err := TreeSHA256(context.Background(), dest); err == nil && tree == op.Entry.TreeSha256 {
					done = append(done, op)
				}
				continue
			}
			aside := filepath.Join(staging, "old", op.Name)
			if _, err := os.Lstat(aside); err == nil {
				if err := os.Rename(aside, dest); err != nil {
					return fmt.Errorf("restore %s: %w", dest, err)
				}
			}
		case "uninstall":
			if !exists {
				done = append(done, op)
			}
		case "record":
			// only the lock entry: it holds when the files are still these
			if op.Entry != nil && exists {
				if tree, err := TreeSHA256(context.Background(), dest); err == nil && tree == op.Entry.TreeSha256 {
					done = append(done, op)
				}
			}
		}
	}
	if len(done) > 0 {
		applyJournal(lock, j.Prefix, done)
		if err := writeLockAt(lockPath, lock); err != nil {
			// The lock cannot take the new state (a full disk): go back to
			// the old one, which needs no space, rather than leave a
			// staging folder that every later command trips over.
			if rerr := rollbackStaging(root, staging, j); rerr != nil {
				return fmt.Errorf("%w; and undoing the interrupted change: %v", err, rerr)
			}
			return nil
		}
	}
	if err := os.Remove(filepath.Join(staging, journalName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return removeStaging(staging)
}

func removeStaging(staging string) error {
	if err := os.RemoveAll(staging); err != nil {
		return fmt.Errorf("remove stale staging folder %s: %w", staging, err)
	}
	return nil
}

// rollbackStaging undoes a journal whose lock was not rewritten: every
// skill folder goes back to what the (old) lock says, reading the state
// from disk so that it serves a live failure and a crash alike, and the
// staging folder goes. It only renames and deletes: no space is needed.
func rollbackStaging(root, staging string, j journal) error {
	undo := filepath.Join(staging, "undo")
	moveOut := func(dest, name string) error {
		if err := os.MkdirAll(undo, 0o755); err != nil {
			return err
		}
		return os.Rename(dest, filepath.Join(undo, name))
	}
	for i := len(j.Ops) - 1; i >= 0; i-- {
		op := j.Ops[i]
		dest := filepath.Join(root, op.Name)
		aside := filepath.Join(staging, "old", op.Name)
		_, destErr := os.Lstat(dest)
		_, asideErr := os.Lstat(aside)
		switch op.Op {
		case "install":
			if op.Entry == nil {
				continue
			}
			isNew := false
			if destErr == nil {
				tree, err := TreeSHA256(context.Background(), dest)
				isNew = err == nil && tree == op.Entry.TreeSha256
			}
			staged := filepath.Join(staging, filepath.FromSlash(op.Staged))
			_, stagedErr := os.Lstat(staged)
			switch {
			case !isNew:
				if destErr != nil && asideErr == nil {
					if err := os.Rename(aside, dest); err != nil {
						return fmt.Errorf("restore %s: %w", dest, err)
					}
				}
			case asideErr == nil: // moved aside, new one renamed in
				if err := moveOut(dest, op.Name); err != nil {
					return fmt.Errorf("undo %s: %w", dest, err)
				}
				if err := os.Rename(aside, dest); err != nil {
					return fmt.Errorf("restore %s: %w", dest, err)
				}
			case stagedErr == nil: // exchanged: the old one is at staged
				if err := atomicfs.Exchange(staged, dest); err != nil {
					if err := moveOut(dest, op.Name); err != nil {
						return fmt.Errorf("undo %s: %w", dest, err)
					}
					if err := os.Rename(staged, dest); err != nil {
						return fmt.Errorf("restore %s: %w", dest, err)
					}
				}
			default: // a new skill: it goes
				if err := moveOut(dest, op.Name); err != nil {
					return fmt.Errorf("undo %s: %w", dest, err)
				}
			}
		case "uninstall":
			if destErr != nil && asideErr == nil {
				if err := os.Rename(aside, dest); err != nil {
					return fmt.Errorf("restore %s: %w", dest, err)
				}
			}
		}
	}
	atomicfs.SyncDir(root)
	if err := os.Remove(filepath.Join(staging, journalName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return removeStaging(staging)
}
