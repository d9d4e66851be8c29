//go:build !unix

package config

// Untrusted: Windows has no Unix owner and mode to check; every path is
// trusted (see docs/platforms.md).
func Untrusted(path string) string { return "" }
