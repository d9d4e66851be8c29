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
		out = append(out, procEntry{pid: pid, ppid: ppid, pgid: pgid})
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
