package skill

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrorReason is a one-line reason for a load error, without the path prefix
// when the error already names it.
func ErrorReason(err error) string {
	var le *LoadError
	if errors.As(err, &le) && le.Reason != "" {
		return le.Reason
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		msg := pe.Msg
		if pe.Line > 0 {
			msg = fmt.Sprintf("line %d: %s", pe.Line, msg)
		}
		return msg
	}
	return err.Error()
}

// CompareVersions orders version strings: numeric dot-separated parts compare
// as numbers (1.10 > 1.9), a leading v is ignored, the rest compares as text.
func CompareVersions(a, b string) int {
	pa := strings.FieldsFunc(strings.TrimPrefix(a, "v"), func(r rune) bool { return r == '.' || r == '-' || r == '+' })
	pb := strings.FieldsFunc(strings.TrimPrefix(b, "v"), func(r rune) bool { return r == '.' || r == '-' || r == '+' })
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil:
			if na != nb {
				if na < nb {
					return -1
				}
				return 1
			}
		case ea == nil:
			return 1 // release (number) after pre-release text
		case eb == nil:
			return -1
		default:
			if c := strings.Compare(pa[i], pb[i]); c != 0 {
				return c
			}
		}
	}
	// 1.0.0 > 1.0.0-beta (a pre-release tail), 1.0.1 > 1.0
	if len(pa) != len(pb) {
		longer, sign := pa, 1
		if len(pb) > len(pa) {
			longer, sign = pb, -1
		}
		if _, err := strconv.Atoi(longer[min(len(pa), len(pb))]); err != nil {
			sign = -sign
		}
		return sign
	}
	return strings.Compare(a, b)
}

// NotFoundError is a skill, path or file that does not exist, with close
// names to suggest.
type NotFoundError struct {
	What        string
	Name        string
	Detail      string
	Suggestions []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no %s named %q", e.What, e.Name)
	if e.What == "path" {
		msg = fmt.Sprintf("%s does not exist", e.Name)
	}
	if e.Detail != "" {
		msg = e.Detail
	}
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	return msg
}

func (e *NotFoundError) Unwrap() error { return ErrNotFound }
