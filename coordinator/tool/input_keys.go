package tool

import (
	"encoding/json"
	"reflect"
	"strings"
)

// flatKeys returns the JSON names of the fields of the input struct type
// t when no field can hold a struct: refusing unknown fields can then only
// refuse a key at the top of the input, which a scan of its keys
// against these names decides without json.Decoder. Any other type (a
// field holding a struct, an embedded field, a field that decodes itself)
// gives nil, ok false: its input takes the decoder. Speed only: the
// decoder costs about twice json.Unmarshal on a small input
// (BenchmarkInputScans/decode, ./coordinator/; docs/benchmarks.md).
func flatKeys(t reflect.Type) (keys []string, ok bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous || !flatValue(f.Type) {
			return nil, false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue // never decoded: its name is an unknown key
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		keys = append(keys, name)
	}
	return keys, true
}

// unmarshalerType is the interface of a type that decodes itself.
var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// flatValue reports whether a field of type t decodes without looking up
// struct fields: scalars, interfaces, raw JSON, and pointers, slices,
// arrays and maps of those.
func flatValue(t reflect.Type) bool {
	if t == reflect.TypeFor[json.RawMessage]() {
		return true
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Interface,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return flatValue(t.Elem())
	case reflect.Map:
		return t.Key().Kind() == reflect.String && flatValue(t.Elem())
	}
	return false
}
