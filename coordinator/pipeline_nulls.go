package coordinator

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// nullItem finds the first null inside an array of a tool input decoded
// into typ and names it as the validator names fields (edits[0], a.b[2]).
// encoding/json reads such a null as the item's zero value, so
// `"ignore": [null]` would become an empty glob and `"edits": [null]` an
// empty edit; no published schema lets such an item be null. A null
// parameter (not inside an array) still reads as left out, and values the
// tool keeps as free JSON (use_mcp_tool's arguments, a notebook's outputs)
// are not judged: their nulls are the data. Inputs without the word null
// are not walked, so the common case costs one byte search (speed only:
// BenchmarkInputScans/nulls, ./coordinator/, docs/benchmarks.md).
func nullItem(raw []byte, typ reflect.Type) (string, bool) {
	if !bytes.Contains(raw, []byte("null")) {
		return "", false
	}
	return nullItemWalk(raw, typ)
}

// nullItemWalk is nullItem without the byte search: the input walked
// token by token.
func nullItemWalk(raw []byte, typ reflect.Type) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return "", false // malformed input is the decoder's to report
	}
	return nullItemIn(dec, tok, "", typ)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// nullItemIn walks the value that starts with tok, found at path and
// decoded into typ (nil when the input has no such field).
func nullItemIn(dec *json.Decoder, tok json.Token, path string, typ reflect.Type) (string, bool) {
	d, ok := tok.(json.Delim)
	if !ok {
		return "", false
	}
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == nil || typ == rawMessageType || typ.Kind() == reflect.Interface {
		skipValue(dec)
		return "", false
	}
	switch d {
	case '{':
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return "", false
			}
			v, err := dec.Token()
			if err != nil {
				return "", false
			}
			name := key.(string)
			at := name
			if path != "" {
				at = path + "." + name
			}
			if p, ok := nullItemIn(dec, v, at, fieldType(typ, name)); ok {
				return p, true
			}
		}
	case '[':
		var elem reflect.Type
		if k := typ.Kind(); k == reflect.Slice || k == reflect.Array {
			elem = typ.Elem()
		}
		for i := 0; dec.More(); i++ {
			v, err := dec.Token()
			if err != nil {
				return "", false
			}
			at := path + "[" + strconv.Itoa(i) + "]"
			if v == nil && elem != nil && elem.Kind() != reflect.Pointer && elem.Kind() != reflect.Interface {
				return at, true
			}
			if p, ok := nullItemIn(dec, v, at, elem); ok {
				return p, true
			}
		}
	}
	_, _ = dec.Token() // the closing delimiter
	return "", false
}

// fieldType is the type of the struct field (or map value) that the JSON
// key name decodes into, or nil.
func fieldType(typ reflect.Type, name string) reflect.Type {
	switch typ.Kind() {
	case reflect.Map:
		return typ.Elem()
	case reflect.Struct:
		for f := range typ.Fields() {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && tag == "" {
				if t := fieldType(f.Type, name); t != nil {
					return t
				}
				continue
			}
			if tag == name || tag == "" && strings.EqualFold(f.Name, name) {
				return f.Type
			}
		}
	}
	return nil
}

// skipValue reads the rest of a value whose opening delimiter was read.
func skipValue(dec *json.Decoder) {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
}
