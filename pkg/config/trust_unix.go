//go:build unix

package config

import (
	"fmt"
	"os"
	"syscall"
)

// Untrusted says why path (a config file, a project folder or a skill
// root) must be ignored, or "" when it may be used (SPEC §3, as git's
// safe.directory): it is owned by another user (neither the current user
// nor root), or others may write to it, or its group may and that group is
// not the user's own.
func Untrusted(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	uid := os.Geteuid()
	switch {
	case int(st.Uid) != uid && st.Uid != 0:
		return fmt.Sprintf("it belongs to user %d, not to you (%d) or root", st.Uid, uid)
	case fi.Mode().Perm()&0o002 != 0:
		return "anyone may write to it (mode " + fmt.Sprintf("%04o", fi.Mode().Perm()) + ")"
	case fi.Mode().Perm()&0o020 != 0 && int(st.Gid) != os.Getegid():
		return fmt.Sprintf("group %d may write to it (mode %04o)", st.Gid, fi.Mode().Perm())
	}
	return ""
}
