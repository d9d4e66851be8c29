package run

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Resource limits of sandboxed scripts (SPEC §7). They are applied in
// every tier, none included, by the last process before the script.
const (
	// rlimitFiles is the most files a script process can have open.
	rlimitFiles = 4096
	// rlimitFileSize is the largest file a script can write.
	rlimitFileSize = 1 << 30
	// rlimitProcs is the most processes (threads count) a script can add
	// on top of what runs already.
	rlimitProcs = 1024
	// procsReserve is kept free under the user's own process limit for
	// skillctl and its supervisor, so that a fork bomb cannot starve them.
	procsReserve = 64
	// minAddressSpace and maxAddressSpace bound the address space limit,
	// which is half of the machine's memory in between.
	minAddressSpace = 4 << 30
	maxAddressSpace = 64 << 30
)

// limits are the resource limits for one script.
type limits struct {
	Files, FileSize, Procs, AddressSpace uint64
}

// scriptLimits works out the limits. The process limit is checked by Linux
// against the number of processes of the user (in the user namespace the
// script runs in, and in every namespace above), so it is set relative to
// what runs now and below the user's own limit, leaving room for skillctl.
func scriptLimits() limits {
	l := limits{Files: rlimitFiles, FileSize: rlimitFileSize, AddressSpace: addressSpaceLimit()}
	var cur unix.Rlimit
	own := uint64(1<<63 - 1)
	if unix.Getrlimit(unix.RLIMIT_NPROC, &cur) == nil && cur.Cur != unix.RLIM_INFINITY {
		own = cur.Cur
	}
	tasks := systemTasks()
	if ownNamespace() {
		// Counted from zero here; the user's count above must stay below
		// its limit too.
		l.Procs = clampSub(own, procsReserve+tasks)
		l.Procs = min(l.Procs, rlimitProcs)
	} else {
		l.Procs = min(clampSub(own, procsReserve), tasks+rlimitProcs)
	}
	return l
}

func clampSub(a, b uint64) uint64 {
	if a <= b {
		return 0
	}
	return a - b
}

// systemTasks is the number of threads on the machine (/proc/loadavg), an
// upper bound of the user's own.
func systemTasks() uint64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 4 {
		return 0
	}
	_, total, ok := bytes.Cut(f[3], []byte("/"))
	if !ok {
		return 0
	}
	n, _ := strconv.ParseUint(string(total), 10, 64)
	return n
}

// ownNamespace says whether this process runs in a user namespace of its
// own (not the machine's initial one).
func ownNamespace() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	f := bytes.Fields(b)
	return !(len(f) == 3 && string(f[0]) == "0" && string(f[1]) == "0" && string(f[2]) == "4294967295")
}

// addressSpaceLimit is half of the machine's memory, within bounds.
func addressSpaceLimit() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return minAddressSpace
	}
	total := uint64(si.Totalram) * uint64(si.Unit)
	return max(minAddressSpace, min(maxAddressSpace, total/2))
}

// apply lowers the limits of this process (never raises one). Processes
// cannot be limited for root (Linux exempts uid 0 from RLIMIT_NPROC).
func (l limits) apply() {
	lower := func(res int, v uint64) {
		var r unix.Rlimit
		if unix.Getrlimit(res, &r) != nil {
			return
		}
		r.Cur, r.Max = min(r.Cur, v), min(r.Max, v)
		_ = unix.Setrlimit(res, &r)
	}
	lower(unix.RLIMIT_CORE, 0)
	lower(unix.RLIMIT_NOFILE, l.Files)
	lower(unix.RLIMIT_FSIZE, l.FileSize)
	lower(unix.RLIMIT_AS, l.AddressSpace)
	lower(unix.RLIMIT_NPROC, l.Procs)
}
