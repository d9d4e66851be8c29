package install_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillctl/skillctl/pkg/install"
)

// corpusDir is ../shared/corpus from the repository top, or $SKILLCTL_CORPUS.
func corpusDir(t *testing.T) string {
	dir := os.Getenv("SKILLCTL_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("no corpus of real skills at %s (set SKILLCTL_CORPUS)", dir)
	}
	return dir
}

// TestCorpus installs every archive of the corpus, one at a time: each
// is installed, whatever validate says of it.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("installs every archive of the corpus")
	}
	dir := corpusDir(t)
	var archives []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			l := strings.ToLower(p)
			if strings.HasSuffix(l, ".zip") || strings.HasSuffix(l, ".skill") || strings.HasSuffix(l, ".tar.gz") || strings.HasSuffix(l, ".tgz") {
				archives = append(archives, p)
			}
		}
		return err
	}))
	sort.Strings(archives)
	// Four workers, each with its own target root, so that the fsyncs of
	// one install overlap the unpacking of another.
	const workers = 4
	roots := make([]string, workers)
	type outcome struct {
		archive string
		skills  int
		err     error
	}
	results := make([]outcome, len(archives))
	var gated atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		roots[w] = filepath.Join(t.TempDir(), "skills")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(archives); i += workers {
				res, err := install.New(install.Options{Sources: []string{archives[i]}, Roots: []string{roots[w]}, Force: true}).Run(context.Background())
				// Refused by the audit gate only: --allow-risk with the
				// rules it names installs it.
				if rules := auditRefusals(err); rules != nil {
					gated.Add(1)
					res, err = install.New(install.Options{Sources: []string{archives[i]}, Roots: []string{roots[w]}, Force: true, AllowRisk: rules}).Run(context.Background())
				}
				results[i] = outcome{archive: archives[i], err: err}
				if err == nil {
					results[i].skills = len(res.Skills)
				}
			}
		}()
	}
	wg.Wait()
	installed := 0
	for _, r := range results {
		// What agents load is installed: no archive of real skills is
		// refused for what validate reports (SPEC §6).
		if assert.NoError(t, r.err, "%s", r.archive) {
			installed += r.skills
		}
	}
	for _, root := range roots {
		requireLockMatchesDisk(t, root)
		assert.Empty(t, stagingLeft(t, root))
	}
	t.Logf("corpus: %d archives, %d skills installed, %d of them after --allow-risk", len(archives), installed, gated.Load())
}

// auditRefusals returns the rules of an install refused by the audit gate
// alone (nil when it was not, or also for another reason).
func auditRefusals(err error) []string {
	var be *install.BundleError
	if !errors.As(err, &be) {
		return nil
	}
	var rules []string
	for _, r := range be.Refused {
		for _, why := range r.Reasons {
			// audit: SEVERITY RULE at …
			f := strings.Fields(why)
			if len(f) < 3 || f[0] != "audit:" {
				return nil
			}
			rules = append(rules, f[2])
		}
	}
	return rules
}
