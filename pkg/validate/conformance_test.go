package validate

import (
	"bufio"
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir is the folder of real skills and the reference validator's
// verdicts: $SKILLCTL_CORPUS, else ../shared/corpus beside the repository.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SKILLCTL_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "verdicts.tsv")); err != nil {
		t.Skipf("no corpus at %s (set SKILLCTL_CORPUS): %v", dir, err)
	}
	return dir
}

// TestReferenceConformance validates every archive of the corpus under the
// spec profile and compares the verdict with the reference validator's.
func TestReferenceConformance(t *testing.T) {
	dir := corpusDir(t)
	f, err := os.Open(filepath.Join(dir, "verdicts.tsv"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	total, agree := 0, 0
	for line := 0; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if line == 0 || len(cols) < 3 {
			continue
		}
		archive, folder, want := cols[0], cols[1], cols[2] == "1"
		total++
		rep, err := (&Validator{Options: Options{Profile: ProfileSpec}}).Run(context.Background(),
			[]string{filepath.Join(dir, filepath.FromSlash(archive))})
		if !assert.NoError(t, err, archive) {
			continue
		}
		failed := rep.Failed(false)
		if assert.Len(t, rep.Results, 1, archive) {
			assert.Equal(t, folder, path.Base(filepath.ToSlash(rep.Results[0].Dir)), archive)
		}
		if failed == want {
			agree++
		} else {
			msg := ""
			if len(cols) > 3 {
				msg = cols[3]
			}
			t.Errorf("%s: reference invalid=%v (%s), skillctl invalid=%v: %+v", archive, want, msg, failed, rep.Results)
		}
	}
	require.NoError(t, sc.Err())
	require.NotZero(t, total)
	t.Logf("spec profile agrees with the reference validator on %d of %d archives", agree, total)
}
