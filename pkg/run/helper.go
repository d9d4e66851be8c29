package run

// HelperCommand is the hidden skillctl command that the namespaces,
// landlock and none tiers (and bwrap, inside its sandbox) re-execute to
// confine themselves before running the script.
const HelperCommand = "__sandbox-exec"
