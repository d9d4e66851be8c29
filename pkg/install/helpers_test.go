package install_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	at "github.com/skillctl/skillctl/pkg/archive/archivetest"
	"github.com/skillctl/skillctl/pkg/install"
)

// writeArchive writes data to dir/name and returns the path.
func writeArchive(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// snapshot maps every path below dir to its type and content, to prove a
// failed operation changed nothing.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link:" + target
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = info.Mode().Perm().String() + ":" + string(b)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

func stagingLeft(t testing.TB, root string) []string {
	t.Helper()
	ents, _ := os.ReadDir(root)
	var left []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".skillctl-staging-") {
			left = append(left, e.Name())
		}
	}
	sort.Strings(left)
	return left
}

func run(t testing.TB, opts install.Options) (*install.Result, error) {
	t.Helper()
	return install.New(opts).Run(context.Background())
}

// goodSkill builds a zip holding one top-level folder with a valid skill.
func goodSkill(name, body string) []at.Entry {
	e := at.Skill(name, name)
	e[2].Body = body
	return e
}

// requireLockMatchesDisk checks that every lock entry describes the folder on disk.
func requireLockMatchesDisk(t testing.TB, root string) *install.Lock {
	t.Helper()
	lock, err := install.ReadLock(root)
	require.NoError(t, err, "the lock file parses")
	require.Equal(t, lock.Len(), len(lock.Entries()), "every entry decodes")
	for name, e := range lock.Entries() {
		tree, err := install.TreeSHA256(context.Background(), filepath.Join(root, name))
		require.NoError(t, err, "%s is on disk", name)
		require.Equal(t, e.TreeSha256, tree, "the lock entry of %s matches the disk", name)
	}
	return lock
}
