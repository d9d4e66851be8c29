//go:build !unix

package install

import "io/fs"

// umaskChanges: without a umask to read, every file gets its mode set.
func umaskChanges(fs.FileMode) bool { return true }
