package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// The budgets of SPEC §10 are checked by these benchmarks (never by timed
// tests). Run them with:
//
//	go test -run '^$' -bench 'BenchmarkRun' -benchtime 40x ./pkg/run
//
// They drive the skillctl binary as a user does and report medians:
// direct-ms (budget 10 ms), and per available tier <tier>-ms and
// <tier>-overhead-ms, the median of (sandboxed run - the same script run
// directly), measured in alternation so that machine noise hits both alike
// (budget 30 ms).

const examples = "../../testdata/examples"

func timeRun(b *testing.B, stdin []byte, name string, args ...string) time.Duration {
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, errOut.String())
	}
	return time.Since(start)
}

func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m) / float64(time.Millisecond)
}

func BenchmarkRunDirect(b *testing.B) {
	if buildErr != nil {
		b.Skip(buildErr)
	}
	skillDir := filepath.Join(examples, "release-notes")
	args := []string{"run", skillDir, "--input", "version=2.1", "--input", "product=Acme", "--input", "changes=- faster"}
	env := benchEnv(b)
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(skillctlBin, args...)
		cmd.Env = env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		ds = append(ds, time.Since(start))
	}
	b.ReportMetric(median(ds), "direct-ms")
}

// benchEnv keeps run records out of the user's state folder.
func benchEnv(b *testing.B) []string {
	return append(os.Environ(), "XDG_STATE_HOME="+b.TempDir(), "XDG_CONFIG_HOME="+b.TempDir())
}

func BenchmarkRunSandboxOverhead(b *testing.B) {
	if buildErr != nil {
		b.Skip(buildErr)
	}
	if runtime.GOOS == "windows" {
		b.Skip("no sandbox on Windows")
	}
	skillDir, _ := filepath.Abs(filepath.Join(examples, "hello-sandbox"))
	script := filepath.Join(skillDir, "scripts", "run.sh")
	input := []byte(`{"name":"bench"}`)
	var tiers []string
	for _, tier := range allTierNames() {
		if err := tierWorks(tier); err != nil {
			b.Logf("%s: skipped: %v", tier, err)
			continue
		}
		tiers = append(tiers, tier)
	}
	env := benchEnv(b)
	base := []time.Duration{}
	runs := map[string][]time.Duration{}
	over := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, tier := range tiers {
			d0 := timeRun(b, input, "/bin/sh", script)
			base = append(base, d0)
			cmd := exec.Command(skillctlBin, "run", skillDir, "--isolation", tier, "--input-json", string(input))
			cmd.Env = env
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", tier, err, out)
			}
			d := time.Since(start)
			runs[tier] = append(runs[tier], d)
			over[tier] = append(over[tier], d-d0)
		}
	}
	b.ReportMetric(median(base), "script-ms")
	for _, tier := range tiers {
		b.ReportMetric(median(runs[tier]), tier+"-ms")
		b.ReportMetric(median(over[tier]), tier+"-overhead-ms")
	}
}

// tierWorks runs a trivial script under tier and reports why it failed.
func tierWorks(tier string) error {
	dir, err := os.MkdirTemp("", "skillctl-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	skillDir, _ := filepath.Abs(filepath.Join(examples, "hello-sandbox"))
	cmd := exec.CommandContext(context.Background(), skillctlBin, "run", skillDir, "--isolation", tier)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

func allTierNames() []string {
	var names []string
	for _, t := range allTiers() {
		names = append(names, t.name())
	}
	return names
}
