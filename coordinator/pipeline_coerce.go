package coordinator

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// coerceStrings rewrites string values of typed parameters into the type
// the schema asks for, as Cline's XML tool calls carry every parameter as
// a string ("recursive": "true", "start_line": "10", "options": "[...]").
// A string that does not parse as its type is left alone, so validation
// reports it as it would any other wrong value. An empty string for a
// typed parameter means the parameter was not given (Cline's handlers
// treat it so). Input that is not a JSON object is returned unchanged.
func coerceStrings(raw json.RawMessage, types map[string]string) json.RawMessage {
	if len(types) == 0 || !bytes.Contains(raw, []byte(`"`)) || !namesAny(raw, types) {
		return raw
	}
	return coerceDecoded(raw, types)
}

// coerceDecoded is coerceStrings without the scan that spares most
// inputs: the input decoded, its typed string values coerced, and
// encoded again when one changed.
func coerceDecoded(raw json.RawMessage, types map[string]string) json.RawMessage {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return raw
	}
	changed := false
	for name, want := range types {
		v, ok := obj[name]
		if !ok || len(v) == 0 || v[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			continue
		}
		if strings.TrimSpace(s) == "" {
			delete(obj, name)
			changed = true
			continue
		}
		if c, ok := coerceString(s, want); ok {
			obj[name] = c
			changed = true
		}
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// namesAny reports whether raw may hold one of the typed parameters with
// a string value: a key is its name in quotes followed by a colon, and its
// value a string when the next byte is a quote. Unless escapes spell them
// otherwise: then the full decode decides. Most calls carry no such value
// (read_file's path alone, execute_command's requires_approval as a
// boolean), and skip decoding and re-encoding the input. Speed only:
// BenchmarkInputScans/coerce (./coordinator/, docs/benchmarks.md).
func namesAny(raw json.RawMessage, types map[string]string) bool {
	if bytes.IndexByte(raw, '\\') >= 0 {
		return true
	}
	for name := range types {
		for rest := []byte(raw); ; {
			i := bytes.Index(rest, []byte(name))
			if i < 0 {
				break
			}
			before, after := rest[:i], rest[i+len(name):]
			rest = after
			if len(before) == 0 || before[len(before)-1] != '"' || len(after) == 0 || after[0] != '"' {
				continue
			}
			v := bytes.TrimLeft(after[1:], " \t\r\n")
			if len(v) == 0 || v[0] != ':' {
				continue // a string value, not a key
			}
			if v = bytes.TrimLeft(v[1:], " \t\r\n"); len(v) > 0 && v[0] == '"' {
				return true
			}
		}
	}
	return false
}

// coerceString parses one string as a JSON type; ok is false when it is
// not a value of that type.
func coerceString(s, want string) (json.RawMessage, bool) {
	s = strings.TrimSpace(s)
	switch want {
	case "boolean":
		switch strings.ToLower(s) {
		case "true":
			return json.RawMessage("true"), true
		case "false":
			return json.RawMessage("false"), true
		}
	case "integer":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(n, 10)), true
		}
	case "number":
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), true
		}
	case "array", "object":
		open := byte('[')
		if want == "object" {
			open = '{'
		}
		if s[0] == open && json.Valid([]byte(s)) {
			return json.RawMessage(s), true
		}
	}
	return nil, false
}
