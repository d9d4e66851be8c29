package run

// HelperCommand is the hidden skillctl command that the namespaces,
// landlock and none tiers (and bwrap, inside its sandbox) re-execute to
// confine themselves before running the script.
const HelperCommand = "__sandbox-exec"

// helperName is argv[0] of the helper, so that a skillctl binary
// reached through any path or link runs its own command line.
const helperName = "skillctl"

// helperSpec tells the helper what to set up. It travels as one JSON argument.
type helperSpec struct {
	Argv []string `json:"argv"`
	Dir  string   `json:"dir"`
	// Landlock is require (fail when it cannot be applied), try, or off.
	Landlock      string   `json:"landlock"`
	ReadOnly      []string `json:"ro,omitempty"`
	ReadOnlyFiles []string `json:"roFiles,omitempty"`
	ReadWrite     []string `json:"rw,omitempty"`
	DevFiles      []string `json:"devFiles,omitempty"`
	// Network leaves TCP/UDP unrestricted by Landlock.
	Network bool `json:"network,omitempty"`
	// NetByLandlock: Landlock is the only network isolation, so an ABI
	// that cannot restrict TCP is a setup failure.
	NetByLandlock bool `json:"netByLandlock,omitempty"`
	// MountProc mounts a private /proc (the helper is pid 1 of a new pid namespace).
	MountProc bool `json:"mountProc,omitempty"`
	// Subreaper keeps orphaned descendants below the helper.
	Subreaper bool `json:"subreaper,omitempty"`
	// DropEnv are variables the sandbox tool added that the script must not see.
	DropEnv []string `json:"dropEnv,omitempty"`
	// DropCaps empties the capability sets the script can get.
	DropCaps bool `json:"dropCaps,omitempty"`
}

// Landlock modes of the helper.
const (
	landlockRequire = "require"
	landlockTry     = "try"
	landlockOff     = "off"
)
