// Command bench measures skillctl against the budgets of SPEC §10: each
// case runs skillctl and its floor (or reference command) alternately, takes
// the medians, and prints the ratio beside the budget. Run it with make bench.
package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillctl/skillctl/internal/synth"
	"github.com/skillctl/skillctl/pkg/install"
)

type sample struct {
	wall time.Duration
	rss  int64 // KiB
}

type result struct {
	name    string
	budget  string
	ours    []sample
	ref     []sample
	refName string
	// maxRatio or maxWall set the budget; maxRSS in KiB (0: none).
	maxRatio float64
	maxWall  time.Duration
	maxRSS   int64
	skipped  string
}

func main() {
	bin := flag.String("skillctl", "bin/skillctl", "skillctl binary to measure")
	n := flag.Int("n", 10000, "number of generated skills")
	runs := flag.Int("runs", 7, "runs per command (medians are reported)")
	floorSrc := flag.String("floor", "../shared/bench/floor", "source folder of the floor program")
	only := flag.String("only", "", "comma-separated cases to run (list,validate,index,version,direct,install,real,list100k,install1000,lock,git)")
	corpus := flag.String("corpus", "../shared/corpus", "folder of real skills (zip archives) for the real-corpus cases")
	big := flag.Int("big", 100000, "number of generated skills of the large list case")
	flag.Parse()

	abs, err := filepath.Abs(*bin)
	must(err)
	*bin = abs
	work, err := os.MkdirTemp("", "skillctl-bench-")
	must(err)
	defer os.RemoveAll(work)
	home := filepath.Join(work, "home")
	must(os.MkdirAll(home, 0o755))
	env := append(cleanEnv(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))

	root := filepath.Join(work, "skills")
	fmt.Fprintf(os.Stderr, "bench: generating %d skills in %s\n", *n, root)
	_, err = synth.Generate(root, synth.Options{Count: *n, Seed: 1, Scripts: true})
	must(err)

	floor := ""
	if fi, err := os.Stat(*floorSrc); err == nil && fi.IsDir() {
		floor = filepath.Join(work, "floor")
		cmd := exec.Command("go", "build", "-C", *floorSrc, "-o", floor, ".")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: cannot build the floor program: %v\n", err)
			floor = ""
		}
	}
	want := map[string]bool{}
	for _, c := range strings.Split(*only, ",") {
		if c != "" {
			want[c] = true
		}
	}
	enabled := func(c string) bool { return len(want) == 0 || want[c] }
	has := func(sub string) bool {
		return exec.Command(*bin, sub, "--help").Run() == nil
	}
	var files []string
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		files = append(files, filepath.Join(root, e.Name(), "SKILL.md"))
	}

	var results []*result
	warm := func(args ...string) { _ = exec.Command(args[0], args[1:]...).Run() }

	if enabled("list") {
		r := &result{name: fmt.Sprintf("list of %d skills", *n), budget: "≤ 1.5× floor, RSS ≤ 64 MiB", maxRatio: 1.5, maxRSS: 64 << 10}
		if floor == "" {
			r.skipped = "floor program not found (" + *floorSrc + ")"
		} else {
			warm("cat", root)
			r.refName = "floor"
			r.ours, r.ref = alternate(*runs, env, []string{*bin, "list", "--path", root}, []string{floor, root})
		}
		results = append(results, r)
	}
	if enabled("validate") {
		r := &result{name: fmt.Sprintf("validate of %d skills", *n), budget: "≤ 2× cat of every SKILL.md", maxRatio: 2}
		if !has("validate") {
			r.skipped = "this build has no validate command"
		} else {
			r.refName = "cat"
			r.ours, r.ref = alternate(*runs, env, []string{*bin, "validate", root}, append([]string{"cat"}, files...))
		}
		results = append(results, r)
	}
	if enabled("index") {
		r := &result{name: fmt.Sprintf("index of %d skills", *n), budget: "≤ 2× floor", maxRatio: 2}
		switch {
		case !has("index"):
			r.skipped = "this build has no index command"
		case floor == "":
			r.skipped = "floor program not found"
		default:
			r.refName = "floor"
			r.ours, r.ref = alternate(*runs, env, []string{*bin, "index", "--path", root}, []string{floor, root})
		}
		results = append(results, r)
	}
	if enabled("version") {
		r := &result{name: "version", budget: "≤ 10 ms", maxWall: 10 * time.Millisecond}
		r.ours, _ = alternate(*runs*3, env, []string{*bin, "version"}, nil)
		results = append(results, r)
	}
	if enabled("direct") {
		r := &result{name: "run --mode direct", budget: "≤ 10 ms", maxWall: 10 * time.Millisecond}
		if !has("run") {
			r.skipped = "this build has no run command"
		} else {
			skill := filepath.Join(work, "direct", "echo-input")
			must(os.MkdirAll(skill, 0o755))
			must(os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: echo-input\ndescription: Echoes its input.\nmetadata:\n  mode: direct\n---\nHello {{input.name}} at {{system.date}}.\n"), 0o644))
			r.ours, _ = alternate(*runs*3, env, []string{*bin, "run", skill, "--mode", "direct", "--input", "name=bench"}, nil)
		}
		results = append(results, r)
	}
	if enabled("install") {
		r := &result{name: "install of 100 skills (~20 MB)", budget: "≤ 1.5× unzip -q", maxRatio: 1.5}
		_, unzipErr := exec.LookPath("unzip")
		switch {
		case !has("install"):
			r.skipped = "this build has no install command"
		case unzipErr != nil:
			r.skipped = "unzip is not installed"
		default:
			archivePath := filepath.Join(work, "bench.zip")
			f, err := os.Create(archivePath)
			must(err)
			must(install.WriteBenchArchive(f, 100, 384<<10))
			must(f.Close())
			r.refName = "unzip"
			for i := 0; i < *runs; i++ {
				dst := filepath.Join(work, fmt.Sprintf("inst-%d", i))
				r.ours = append(r.ours, runOnce(env, []string{*bin, "install", archivePath, "--dir", dst, "-q"}))
				udst := filepath.Join(work, fmt.Sprintf("unzip-%d", i))
				r.ref = append(r.ref, runOnce(env, []string{"unzip", "-q", archivePath, "-d", udst}))
				_ = os.RemoveAll(dst)
				_ = os.RemoveAll(udst)
			}
		}
		results = append(results, r)
	}
	if enabled("real") {
		results = append(results, realCases(*bin, *corpus, floor, work, env, *n, *runs)...)
	}
	if enabled("list100k") {
		r := &result{name: fmt.Sprintf("list of %d skills", *big), budget: "≤ 1.5× floor, RSS ≤ 160 MiB", maxRatio: 1.5, maxRSS: 160 << 10}
		if floor == "" {
			r.skipped = "floor program not found (" + *floorSrc + ")"
		} else {
			bigRoot := filepath.Join(work, "big")
			fmt.Fprintf(os.Stderr, "bench: generating %d skills in %s\n", *big, bigRoot)
			_, err = synth.Generate(bigRoot, synth.Options{Count: *big, Seed: 2})
			must(err)
			warm("cat", bigRoot)
			r.refName = "floor"
			r.ours, r.ref = alternate(max(3, *runs/2), env, []string{*bin, "list", "--path", bigRoot}, []string{floor, bigRoot})
			must(os.RemoveAll(bigRoot))
		}
		results = append(results, r)
	}
	if enabled("install1000") {
		results = append(results, installManyCase(*bin, work, env, *runs))
	}
	if enabled("lock") {
		results = append(results, lockCases(*bin, work, env, *runs)...)
	}
	if enabled("git") {
		results = append(results, gitCase(*bin, work, env, *runs))
	}
	for _, r := range results {
		printResult(r)
	}
}

// realCases measure list, list --json, index (of discovered skills and of
// a folder) and validate on the SKILL.md files of the corpus copied to n
// skills, against the floor and cat.
func realCases(bin, corpus, floor, work string, env []string, n, runs int) []*result {
	names := []string{"list", "list --json", "index", "index DIR", "validate", "audit"}
	out := make([]*result, len(names))
	for i, nm := range names {
		out[i] = &result{name: fmt.Sprintf("%s of %d real", nm, n), budget: "≤ 1.5× floor", maxRatio: 1.5}
	}
	out[2].budget, out[2].maxRatio = "≤ 2× floor", 2
	out[3].budget, out[3].maxRatio = "≤ 2× floor", 2
	out[4].budget, out[4].maxRatio = "≤ 2× cat of every SKILL.md", 2
	out[5].budget, out[5].maxRatio = "≤ 3× cat of every file it reads", 3
	docs, err := corpusSkillFiles(corpus)
	if err != nil || len(docs) == 0 {
		for _, r := range out {
			r.skipped = fmt.Sprintf("no real skills in %s (%v)", corpus, err)
		}
		return out
	}
	root := filepath.Join(work, "real")
	fmt.Fprintf(os.Stderr, "bench: copying %d real SKILL.md files to %d skills in %s\n", len(docs), n, root)
	files := make([]string, n)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("skill-%05d", i))
		must(os.MkdirAll(dir, 0o755))
		files[i] = filepath.Join(dir, "SKILL.md")
		must(os.WriteFile(files[i], docs[i%len(docs)], 0o644))
	}
	defer os.RemoveAll(root)
	_ = exec.Command("cat", files...).Run()
	if floor == "" {
		for _, r := range out[:4] {
			r.skipped = "floor program not found"
		}
	} else {
		for i, args := range [][]string{
			{bin, "list", "--path", root},
			{bin, "list", "--json", "--path", root},
			{bin, "index", "--path", root},
			{bin, "index", root},
		} {
			out[i].refName = "floor"
			out[i].ours, out[i].ref = alternate(runs, env, args, []string{floor, root})
		}
	}
	out[4].refName = "cat"
	out[4].ours, out[4].ref = alternate(runs, env, []string{bin, "validate", root}, append([]string{"cat"}, files...))
	// audit reads every file of each skill: here, the SKILL.md.
	out[5].refName = "cat"
	out[5].ours, out[5].ref = alternate(runs, env, []string{bin, "audit", root, "--fail-on", "none"}, append([]string{"cat"}, files...))
	return out
}

// corpusSkillFiles reads the SKILL.md of every zip archive (.zip, .skill)
// below dir, sorted by archive path.
func corpusSkillFiles(dir string) ([][]byte, error) {
	var archives []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".zip") || strings.HasSuffix(p, ".skill")) {
			archives = append(archives, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(archives)
	var docs [][]byte
	for _, a := range archives {
		zr, err := zip.OpenReader(a)
		if err != nil {
			continue
		}
		for _, f := range zr.File {
			if path.Base(f.Name) != "SKILL.md" || strings.Count(strings.Trim(f.Name, "/"), "/") != 1 {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				continue
			}
			data, err := io.ReadAll(io.LimitReader(rc, 2<<20))
			rc.Close()
			if err == nil {
				docs = append(docs, data)
			}
		}
		zr.Close()
	}
	return docs, nil
}

// installManyCase installs one archive of 1,000 small skills, against unzip.
func installManyCase(bin, work string, env []string, runs int) *result {
	r := &result{name: "install of 1,000 small skills", budget: "≤ 2× unzip -q", maxRatio: 2}
	if _, err := exec.LookPath("unzip"); err != nil {
		r.skipped = "unzip is not installed"
		return r
	}
	archivePath := filepath.Join(work, "many.zip")
	f, err := os.Create(archivePath)
	must(err)
	must(install.WriteBenchArchive(f, 1000, 1<<10))
	must(f.Close())
	r.refName = "unzip"
	for i := 0; i < runs; i++ {
		dst := filepath.Join(work, fmt.Sprintf("many-%d", i))
		r.ours = append(r.ours, runOnce(env, []string{bin, "install", archivePath, "--dir", dst, "-q"}))
		udst := filepath.Join(work, fmt.Sprintf("many-unzip-%d", i))
		r.ref = append(r.ref, runOnce(env, []string{"unzip", "-q", archivePath, "-d", udst}))
		_ = os.RemoveAll(dst)
		_ = os.RemoveAll(udst)
	}
	return r
}

// lockCases install and uninstall one skill into a root that holds 1,000
// managed skills, against the same into an empty root.
func lockCases(bin, work string, env []string, runs int) []*result {
	inst := &result{name: "install 1 into 1,000 managed", budget: "≤ 1.5× into an empty root", maxRatio: 1.5, refName: "empty"}
	un := &result{name: "uninstall 1 of 1,001 managed", budget: "≤ 1.5× from a root of 1", maxRatio: 1.5, refName: "of 1"}
	many := filepath.Join(work, "lock-many.zip")
	f, err := os.Create(many)
	must(err)
	must(install.WriteBenchArchive(f, 1000, 0))
	must(f.Close())
	one := filepath.Join(work, "lock-one")
	must(os.MkdirAll(one, 0o755))
	must(os.WriteFile(filepath.Join(one, "SKILL.md"), []byte("---\nname: lock-one\ndescription: One more skill.\n---\nBody.\n"), 0o644))
	full := filepath.Join(work, "lock-full")
	empty := filepath.Join(work, "lock-empty")
	cmd := exec.Command(bin, "install", many, "--dir", full, "-q")
	cmd.Env = env
	must(cmd.Run())
	// The same in the user scope: the lock in $XDG_CONFIG_HOME/skillctl,
	// the skills in the agents' folders (claude and codex: one entry, two folders).
	userInst := &result{name: "install 1 into a user scope of 1,000 managed", budget: "≤ 1.5× into an empty scope", maxRatio: 1.5, refName: "empty"}
	userUn := &result{name: "uninstall 1 from a user scope of 1,001", budget: "≤ 1.5× from a scope of 1", maxRatio: 1.5, refName: "of 1"}
	homeEnv := func(home string) []string {
		out := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
		for _, kv := range env {
			if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
				out = append(out, kv)
			}
		}
		return out
	}
	fullHome, emptyHome := homeEnv(filepath.Join(work, "lock-home-full")), homeEnv(filepath.Join(work, "lock-home-empty"))
	cmd = exec.Command(bin, "install", many, "--agent", "claude,codex", "-q")
	cmd.Env = fullHome
	must(cmd.Run())
	for i := 0; i < runs; i++ {
		inst.ours = append(inst.ours, runOnce(env, []string{bin, "install", one, "--dir", full, "-q"}))
		inst.ref = append(inst.ref, runOnce(env, []string{bin, "install", one, "--dir", empty, "-q"}))
		un.ours = append(un.ours, runOnce(env, []string{bin, "uninstall", "lock-one", "--dir", full, "-q"}))
		un.ref = append(un.ref, runOnce(env, []string{bin, "uninstall", "lock-one", "--dir", empty, "-q"}))
		userInst.ours = append(userInst.ours, runOnce(fullHome, []string{bin, "install", one, "--agent", "claude,codex", "-q"}))
		userInst.ref = append(userInst.ref, runOnce(emptyHome, []string{bin, "install", one, "--agent", "claude,codex", "-q"}))
		userUn.ours = append(userUn.ours, runOnce(fullHome, []string{bin, "uninstall", "lock-one", "--agent", "claude,codex", "-q"}))
		userUn.ref = append(userUn.ref, runOnce(emptyHome, []string{bin, "uninstall", "lock-one", "--agent", "claude,codex", "-q"}))
	}
	return []*result{inst, un, userInst, userUn}
}

// gitCase installs one skill from a local bare repository of 5,000 files
// (the skill and 4,999 other files), against git clone --depth 1 of it.
func gitCase(bin, work string, env []string, runs int) *result {
	r := &result{name: "install 1 skill from a git repo of 5,000 files", budget: "≤ 1.5× git clone --depth 1", maxRatio: 1.5,
		refName: "clone"}
	if _, err := exec.LookPath("git"); err != nil {
		r.skipped = "git is not installed"
		return r
	}
	repo := filepath.Join(work, "gitrepo")
	tree := filepath.Join(repo, "work")
	for i := 0; i < 4999; i++ {
		d := filepath.Join(tree, "docs", fmt.Sprintf("d%02d", i%50))
		must(os.MkdirAll(d, 0o755))
		must(os.WriteFile(filepath.Join(d, fmt.Sprintf("f%04d.md", i)), []byte(strings.Repeat(fmt.Sprintf("line %d\n", i), 40)), 0o644))
	}
	must(os.MkdirAll(filepath.Join(tree, "skills", "pdf"), 0o755))
	must(os.WriteFile(filepath.Join(tree, "skills", "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: PDF things.\n---\n# PDF\n"), 0o644))
	gitEnv := append(append([]string(nil), env...), "GIT_CONFIG_GLOBAL="+filepath.Join(repo, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
	git := func(dir string, args ...string) {
		c := exec.Command("git", args...)
		c.Dir, c.Env = dir, gitEnv
		if out, err := c.CombinedOutput(); err != nil {
			panic(fmt.Sprintf("git %v: %v: %s", args, err, out))
		}
	}
	git(tree, "init", "-q", "-b", "main")
	git(tree, "add", "-A")
	git(tree, "commit", "-q", "-m", "bench")
	bare := filepath.Join(repo, "r.git")
	git(repo, "init", "-q", "--bare", bare)
	git(tree, "push", "-q", bare, "HEAD:refs/heads/main")
	git(bare, "symbolic-ref", "HEAD", "refs/heads/main")
	url := "file://" + filepath.ToSlash(bare)
	for i := 0; i < runs; i++ {
		dst := filepath.Join(repo, fmt.Sprintf("t%d", i))
		r.ours = append(r.ours, runOnce(gitEnv, []string{bin, "install", url, "--skill", "pdf", "--dir", dst, "-q"}))
		cl := filepath.Join(repo, fmt.Sprintf("c%d", i))
		r.ref = append(r.ref, runOnce(gitEnv, []string{"git", "clone", "-q", "--depth", "1", url, cl}))
		_ = os.RemoveAll(dst)
		_ = os.RemoveAll(cl)
	}
	return r
}

// alternate runs a and b one after the other, runs times, and returns their samples.
func alternate(runs int, env, a, b []string) (sa, sb []sample) {
	for i := 0; i < runs; i++ {
		sa = append(sa, runOnce(env, a))
		if b != nil {
			sb = append(sb, runOnce(env, b))
		}
	}
	return sa, sb
}

func runOnce(env, args []string) sample {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout = nil // discarded (/dev/null)
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		must(err)
	}
	return sample{wall: wall, rss: peakRSS(cmd.ProcessState)}
}

func median(s []sample) (time.Duration, int64) {
	w := make([]time.Duration, len(s))
	r := make([]int64, len(s))
	for i, x := range s {
		w[i], r[i] = x.wall, x.rss
	}
	sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
	sort.Slice(r, func(i, j int) bool { return r[i] < r[j] })
	return w[len(w)/2], r[len(r)-1]
}

func printResult(r *result) {
	if r.skipped != "" {
		fmt.Printf("%-28s skipped: %s\n", r.name, r.skipped)
		return
	}
	ow, orss := median(r.ours)
	verdict := "ok"
	line := fmt.Sprintf("%-28s median %8s  peak RSS %6.1f MiB", r.name, round(ow), float64(orss)/1024)
	if r.ref != nil {
		rw, _ := median(r.ref)
		ratio := float64(ow) / float64(rw)
		line += fmt.Sprintf("  %s %8s  ratio %.2f×", r.refName, round(rw), ratio)
		if r.maxRatio > 0 && ratio > r.maxRatio {
			verdict = "OVER BUDGET"
		}
	}
	if r.maxWall > 0 && ow > r.maxWall {
		verdict = "OVER BUDGET"
	}
	if r.maxRSS > 0 && orss > r.maxRSS {
		verdict = "OVER BUDGET (memory)"
	}
	fmt.Printf("%s  budget %s: %s\n", line, r.budget, verdict)
}

func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

// cleanEnv keeps what commands need (PATH, locale) and nothing that would
// change where skillctl looks for skills.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "LANG", "LC_ALL", "TMPDIR", "GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS", "GOPROXY":
			env = append(env, kv)
		}
	}
	return env
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
