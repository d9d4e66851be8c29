//go:build unix && race

package cmd_test

// raceEnabled: the race detector slows skillctl down many times over.
const raceEnabled = true
