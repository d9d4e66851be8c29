package run

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// procEntry is one process as /proc/PID/stat describes it.
type procEntry struct {
	pid, ppid, pgid int
	zombie          bool
}

// readProcs lists the processes visible in /proc.
func readProcs() []procEntry {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	out := make([]procEntry, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(data[i+1:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		pgid, _ := strconv.Atoi(string(f[2]))
		out = append(out, procEntry{pid: pid, ppid: ppid, pgid: pgid, zombie: string(f[0]) == "Z"})
	}
	return out
}

// descendants lists every process below root (children, their children...).
func descendants(root int) []int {
	kids := map[int][]int{}
	for _, p := range readProcs() {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
	}
	var out []int
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range kids[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// killDescendants sends SIGKILL to everything below root until nothing is
// left or the attempts run out. root must be a live subreaper (or pid 1 of a
// namespace) so that orphans stay below it while this runs.
func killDescendants(root int) {
	for i := 0; i < 100; i++ {
		ds := descendants(root)
		if len(ds) == 0 {
			return
		}
		for _, p := range ds {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// sweepGroup kills the process group g until no live process is left in it
// (a zombie waiting for its parent counts as gone), for up to two seconds,
// and returns how many are left.
func sweepGroup(g int) int {
	deadline := time.Now().Add(2 * time.Second)
	for {
		_ = syscall.Kill(-g, syscall.SIGKILL)
		n := 0
		for _, p := range readProcs() {
			if p.pgid == g && !p.zombie {
				n++
			}
		}
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sweep stops what is left of the script's process group after its
// supervisor ended without its last word, and returns how many of its
// processes are still alive (0 where the kernel already ended them all:
// a pid namespace dies with its first process).
func (l *launch) sweep() int {
	g := int(l.group.Load())
	if !l.hostGroup || g <= 0 {
		return 0
	}
	return sweepGroup(g)
}
