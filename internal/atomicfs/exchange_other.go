//go:build !linux && !darwin

package atomicfs

// exchange is not available here: the swap falls back to two renames.
func exchange(a, b string) error { return ErrNoExchange }
