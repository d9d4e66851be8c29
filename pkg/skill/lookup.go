package skill

import (
	"errors"
	"fmt"
	"sort"
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
	switch {
	case len(e.Suggestions) > 0:
		msg += "; did you mean " + strings.Join(e.Suggestions, " or ") + "?"
	case e.What == "skill" && e.Detail == "":
		msg += "; 'skillctl list' shows the skills found here"
	}
	return msg
}

func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Closest returns up to three of names close to arg: within a few edits
// (a third of its length, at least two), or containing it; nearest first.
func Closest(arg string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	la := strings.ToLower(arg)
	limit := max(2, len([]rune(arg))/3)
	for _, name := range names {
		ln := strings.ToLower(name)
		d := levenshtein(la, ln)
		if d <= limit || (len(la) >= 3 && strings.Contains(ln, la)) {
			cs = append(cs, cand{name, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
