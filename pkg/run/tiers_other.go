//go:build !linux && !darwin

package run

import (
	"context"
	"os"
	"os/exec"
)

// No sandbox exists here: auto fails closed, --isolation none runs the script.
func platformTiers() []tier { return nil }

func allTiers() []tier { return []tier{noneTier{}} }

type noneTier struct{}

func (noneTier) name() string { return TierNone }

func (noneTier) check(p *plan) error { return nil }

func (noneTier) prepare(ctx context.Context, p *plan) (*launch, error) {
	cmd := exec.CommandContext(ctx, p.argv[0], p.argv[1:]...)
	env := withEnv(p.env, TierNone)
	// Windows programs need these to start at all.
	for _, k := range []string{"SystemRoot", "SYSTEMROOT", "ComSpec", "PATHEXT", "WINDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	cmd.Env = env
	cmd.Dir = p.workdir
	l := &launch{cmd: cmd, iso: Isolation{Tier: TierNone, Unsandboxed: true, Network: "host",
		Filesystem: "unrestricted (your user's access)",
		Processes:  "the script's process only: what it starts can outlive the timeout"}}
	l.terminate = func() { _ = cmd.Process.Kill() }
	l.kill = func() { _ = cmd.Process.Kill() }
	return l, nil
}
