//go:build unix

package install

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
)

// umask is the process's file mode creation mask, read once from
// /proc/self/status (Linux); -1 when it cannot be read without changing it.
var umask = sync.OnceValue(func() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return int(m)
			}
		}
	}
	return -1
})

// umaskChanges reports whether a file created with mode may not have
// exactly that mode (so that a chmod is needed).
func umaskChanges(mode fs.FileMode) bool {
	m := umask()
	return m < 0 || int(mode.Perm())&m != 0
}
