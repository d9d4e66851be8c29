//go:build linux || darwin

package run

// networkWord is how SKILL_NETWORK and the isolation report name the network.
func networkWord(granted bool) string {
	if granted {
		return "host"
	}
	return "none"
}
