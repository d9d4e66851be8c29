package run

import (
	"context"
	"os"
	"os/exec"
	"sync/atomic"
)

// Isolation tiers (SPEC §7), strongest first on each platform.
const (
	TierAuto       = "auto"
	TierBwrap      = "bwrap"
	TierNamespaces = "namespaces"
	TierLandlock   = "landlock"
	TierSeatbelt   = "seatbelt"
	TierNone       = "none"
)

// Tiers lists the values --isolation accepts.
var Tiers = []string{TierAuto, TierBwrap, TierNamespaces, TierLandlock, TierSeatbelt, TierNone}

// Isolation is the isolation a run achieved, as reported in --json.
type Isolation struct {
	// Tier is the tier that was applied (never merely the one requested).
	Tier string `json:"tier"`
	// Requested is what --isolation or the config asked for.
	Requested string `json:"requested"`
	// Unsandboxed is true for tier none.
	Unsandboxed bool `json:"unsandboxed"`
	// Network is none (no network) or host (the host's network).
	Network string `json:"network"`
	// Filesystem says what the script can see and write.
	Filesystem string `json:"filesystem"`
	// Processes says how the script's processes are contained and stopped.
	Processes string `json:"processes"`
	// Landlock is the Landlock ABI version enforced (0: none).
	Landlock int `json:"landlock"`
	// Skipped lists the stronger tiers that were not available, with why.
	Skipped []string `json:"skipped,omitempty"`
}

// plan is everything a tier needs to start the script.
type plan struct {
	skillName string
	skillDir  string // real path, read-only for the script
	workdir   string // real path, read-write
	tmp       string // private TMPDIR, read-write
	inputFile string // the input JSON, read-only
	argv      []string
	env       []string // without SKILL_SANDBOX, which each tier adds
	network   bool
	self      string // the skillctl executable (the helper)
}

// launch is a started-or-ready-to-start script under one tier.
type launch struct {
	cmd *exec.Cmd
	iso Isolation
	// status is the read end of the helper's status pipe (nil: no helper;
	// the script counts as started once the process is).
	status *os.File
	// afterStart runs once the process started (closes the parent's copies
	// of pipe ends, reads bwrap's info).
	afterStart func()
	// terminate asks the script tree to stop (SIGTERM); kill stops
	// everything that is left, for good.
	terminate func()
	kill      func()
	// hostGroup: the script's process group (Group of the helper's status)
	// is one skillctl can signal (no pid namespace between them); group
	// holds it once known.
	hostGroup bool
	group     atomic.Int64
	// waited is set once the process was waited for.
	waited atomic.Bool
	// afterWait, when set, runs once the process was waited for (tiers
	// without a helper sweep the process group there).
	afterWait func()
}

// tier is one way of isolating a script.
type tier interface {
	name() string
	// check says quickly whether the tier can be tried here, or why not.
	check(p *plan) error
	// prepare builds the command; ctx cancels it (Cmd.Cancel).
	prepare(ctx context.Context, p *plan) (*launch, error)
}
