package run

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/skillctl/skillctl/pkg/skill"
	"github.com/stretchr/testify/require"
)

func needHelper(t *testing.T) {
	t.Helper()
	if buildErr != nil {
		t.Skipf("skillctl could not be built for the sandbox helper: %v", buildErr)
	}
}

// sandboxOptions are options for a captured sandbox run of s under tier.
func sandboxOptions(t *testing.T, s *skill.Skill, tier string) *Options {
	return &Options{Skill: s, Mode: skill.ModeSandbox, Isolation: tier, Capture: true, Self: skillctlBin,
		TempDir: t.TempDir(), Cwd: t.TempDir(), Getenv: func(string) string { return "" }, ExitStatus: testExitStatus}
}

// testExitStatus stands for the caller's exit codes: the result and the
// run record carry what it says.
func testExitStatus(err error) int {
	var (
		te *TimeoutError
		se *SandboxError
		ee *ExitError
	)
	switch {
	case errors.As(err, &te):
		return 124
	case errors.As(err, &se):
		return 125
	case errors.As(err, &ee):
		return ee.Code
	}
	return 1
}

var (
	tierMu     sync.Mutex
	tierChecks = map[string]error{}
)

// requireTier skips the test when the tier cannot be set up on this machine,
// with the reason skillctl gives. The check is a real run of a trivial script.
func requireTier(t *testing.T, tier string) {
	t.Helper()
	needHelper(t)
	tierMu.Lock()
	defer tierMu.Unlock()
	err, done := tierChecks[tier]
	if !done {
		s := writeSkill(t, "probe", nil, "exit 0\n")
		o := sandboxOptions(t, s, tier)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err = o.Run(ctx)
		cancel()
		tierChecks[tier] = err
	}
	var se *SandboxError
	if errors.As(err, &se) {
		t.Skipf("isolation tier %s is not available here: %v", tier, err)
	}
	require.NoError(t, err, "probe run under %s", tier)
}
