package coordinator

import (
	"bytes"
	"encoding/json"
	"reflect"

	fastjson "github.com/segmentio/encoding/json"
)

// decodeStrict decodes raw into in, a pointer to a tool's input struct,
// refusing unknown fields. An input of a flat type (tool.Tool.FlatKeys)
// whose keys are all known takes segmentio's decoder, which has no
// unknown field to refuse there; any other input, and any input it fails
// on (so that errors read the same), takes json.Decoder with
// DisallowUnknownFields. Speed only: encoding/json's decoder costs about
// twice its Unmarshal on a small input (BenchmarkInputScans/decode,
// ./coordinator/; docs/benchmarks.md), and that Unmarshal was 2.7 % of
// toolgate's CPU per read at 16 connections
// (BenchmarkToolUseVsBare/route=tool_use/conns=16, ./cmd/toolgate/).
// TestDecodeStrictSameAsDecoder and FuzzDecodeStrict hold the two to one
// value and one error.
func decodeStrict(in any, raw json.RawMessage, keys []string, flat bool) error {
	if flat && knownKeysOnly(raw, keys) {
		if rest, err := fastjson.Parse(raw, in, fastjson.DisallowUnknownFields); err == nil &&
			len(bytes.TrimLeft(rest, " \t\r\n")) == 0 {
			return nil
		}
		reflect.ValueOf(in).Elem().SetZero()
	}
	return decodeWithDecoder(in, raw)
}

// knownKeysOnly reports whether raw is a JSON object whose keys are all
// among keys, compared as encoding/json matches a key to a field (ASCII
// letters in any case). A key with an escape or a byte outside ASCII, or
// anything the scan does not follow, gives false: the decoder decides.
func knownKeysOnly(raw []byte, keys []string) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return true
	}
	for i < len(raw) {
		if raw[i] != '"' {
			return false
		}
		end := i + 1
		for end < len(raw) && raw[end] != '"' {
			if raw[end] == '\\' || raw[end] >= 0x80 {
				return false
			}
			end++
		}
		if end >= len(raw) || !knownKey(raw[i+1:end], keys) {
			return false
		}
		i = skipSpace(raw, end+1)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		if i = skipKeyValue(raw, skipSpace(raw, i+1)); i < 0 {
			return false
		}
		i = skipSpace(raw, i)
		switch {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == '}':
			return true
		default:
			return false
		}
	}
	return false
}

// knownKey reports whether key equals one of keys, ASCII case folded.
func knownKey(key []byte, keys []string) bool {
	for _, k := range keys {
		if len(k) == len(key) && asciiEqualFold(key, k) {
			return true
		}
	}
	return false
}

func asciiEqualFold(a []byte, b string) bool {
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipKeyValue returns the index just past the JSON value starting at i, or
// -1 when the scan cannot follow it. Nested objects and arrays are passed
// over whole: their keys belong to values (maps, interfaces, raw JSON),
// never to struct fields, in a flat input. Whether the value is well
// formed is left to Unmarshal.
func skipKeyValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return -1
			}
			i++
		case c == '{' || c == '[':
			depth++
			i++
		case c == '}' || c == ']':
			if depth == 0 {
				return i
			}
			depth--
			i++
		case c == ',' && depth == 0:
			return i
		default:
			i++
		}
		if depth == 0 && i > 0 && (b[i-1] == '"' || b[i-1] == '}' || b[i-1] == ']') {
			return i
		}
	}
	if depth != 0 {
		return -1
	}
	return i
}
