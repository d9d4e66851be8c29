package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// InputError is input that cannot be read or parsed: the user fixes what
// they gave.
type InputError struct {
	Kind InputKind
	// Arg is what the user gave: the JSON text, @FILE or - (InputJSON), the
	// KEY=VALUE pair (InputPair), the mode (InputMode).
	Arg string
	Msg string
}

// InputKind says which input an InputError is about.
type InputKind int

// Kinds of input.
const (
	InputJSON    InputKind = iota // the input object as JSON
	InputPair                     // one KEY=VALUE pair
	InputMode                     // the run mode
	InputWorkdir                  // the working folder asked for
	InputTimeout                  // the timeout asked for
)

func (e *InputError) Error() string {
	switch e.Kind {
	case InputPair:
		return fmt.Sprintf("input %q: %s", e.Arg, e.Msg)
	case InputMode:
		return "mode: " + e.Msg
	case InputWorkdir:
		return "workdir " + e.Arg + ": " + e.Msg
	case InputTimeout:
		return "timeout " + e.Arg + ": " + e.Msg
	}
	switch {
	case e.Arg == "-":
		return "input JSON from standard input: " + e.Msg
	case strings.HasPrefix(e.Arg, "@"):
		return "input JSON file " + e.Arg[1:] + ": " + e.Msg
	}
	return "input JSON: " + e.Msg
}

// BuildInput builds the input object from inputJSON (a JSON object given
// as text, @FILE, or - for stdin) and KEY=VALUE pairs, applied in order on
// top of it. Dotted keys build nested objects; a value is parsed as a JSON
// scalar when it is one (42, 1.5, true, null, "quoted") and kept as a string
// otherwise. stdin is read only for "-".
func BuildInput(inputJSON string, pairs []string, stdin io.Reader) (map[string]any, error) {
	in := map[string]any{}
	if inputJSON != "" {
		fail := func(msg string) error { return &InputError{Kind: InputJSON, Arg: inputJSON, Msg: msg} }
		var data []byte
		switch {
		case inputJSON == "-":
			if stdin == nil {
				return nil, fail("no standard input to read")
			}
			b, err := io.ReadAll(io.LimitReader(stdin, maxInputSize+1))
			if err != nil {
				return nil, fail("reading standard input: " + err.Error())
			}
			data = b
		case strings.HasPrefix(inputJSON, "@"):
			f, err := os.Open(inputJSON[1:])
			if err != nil {
				return nil, fail(describeOpen(err))
			}
			b, err := io.ReadAll(io.LimitReader(f, maxInputSize+1))
			f.Close()
			if err != nil {
				return nil, fail(err.Error())
			}
			data = b
		default:
			data = []byte(inputJSON)
		}
		if len(data) > maxInputSize {
			return nil, fail(fmt.Sprintf("input is larger than %d MiB", maxInputSize>>20))
		}
		obj, err := decodeObject(data)
		if err != nil {
			return nil, fail(err.Error())
		}
		in = obj
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, &InputError{Kind: InputPair, Arg: p, Msg: "expected KEY=VALUE (for example name=Ada or user.age=42)"}
		}
		if err := setPath(in, k, scalarValue(v)); err != nil {
			return nil, &InputError{Kind: InputPair, Arg: p, Msg: err.Error()}
		}
	}
	return in, nil
}

// maxInputSize bounds the input document.
const maxInputSize = 16 << 20

func describeOpen(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// decodeObject decodes one JSON object, keeping numbers as written.
func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %s", jsonErrorText(data, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("invalid JSON: more than one value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid JSON: unexpected data after the object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the input must be a JSON object ({\"key\": value, ...}), not %s", jsonKind(v))
	}
	return obj, nil
}

// jsonErrorText adds the line and column of a syntax error.
func jsonErrorText(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset - 1 // the offset is just past the offending byte
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if err == io.EOF {
		return "empty document"
	}
	if err == io.ErrUnexpectedEOF {
		off = int64(len(data))
	}
	if off < 0 {
		return err.Error()
	}
	line, col := 1, 1
	for _, c := range data[:min(int(off), len(data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// scalarValue parses v as a JSON scalar when it is one, else keeps the string.
func scalarValue(v string) any {
	t := strings.TrimSpace(v)
	if t == "" {
		return v
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil || dec.More() {
		return v
	}
	switch x.(type) {
	case nil, bool, json.Number, string:
		return x
	}
	return v // objects and arrays stay text
}

// setPath sets a dotted key in m, creating objects on the way.
func setPath(m map[string]any, key string, v any) error {
	parts := strings.Split(key, ".")
	for _, p := range parts {
		if p == "" {
			return fmt.Errorf("key %q has an empty part", key)
		}
	}
	cur := m
	for i, p := range parts[:len(parts)-1] {
		next, ok := cur[p]
		if !ok {
			nm := map[string]any{}
			cur[p] = nm
			cur = nm
			continue
		}
		nm, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is already a value (%s), it cannot also hold %s",
				strings.Join(parts[:i+1], "."), compactJSON(next), strings.Join(parts[i+1:], "."))
		}
		cur = nm
	}
	last := parts[len(parts)-1]
	if old, ok := cur[last].(map[string]any); ok && len(old) > 0 {
		return fmt.Errorf("%s is already an object with keys %s", key, strings.Join(sortedKeys(old), ", "))
	}
	cur[last] = v
	return nil
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// compactJSON renders v as compact JSON without HTML escaping.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
