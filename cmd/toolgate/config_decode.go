package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// decodeObject sets the fields of v (a struct, or a pointer to one) from
// the keys of obj, key by key, so that one bad key does not hide the
// next: each unknown key and each value of the wrong shape becomes a
// problem named by its path ("tools.commands.max_timeout").
func decodeObject(path string, obj map[string]any, v any, problems *[]string) {
	decodeStruct(path, obj, reflect.ValueOf(v), problems)
}

func decodeStruct(path string, obj map[string]any, v reflect.Value, problems *[]string) {
	v = follow(v)
	fields := jsonFields(v)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		at := joinPath(path, k)
		f, ok := fields[k]
		if !ok {
			*problems = append(*problems, at+": unknown key")
			continue
		}
		decodeValue(at, obj[k], f, problems)
	}
}

// decodeValue sets one field. A nested object goes key by key unless its
// type reads JSON itself; anything else is decoded strictly as a whole.
func decodeValue(path string, raw any, f reflect.Value, problems *[]string) {
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	if f.Type().Implements(unmarshaler) && f.Kind() != reflect.Pointer {
		// A view type such as durationSeconds: it points elsewhere itself.
		decodeWhole(path, raw, f.Addr().Interface(), problems)
		return
	}
	f = follow(f)
	if obj, ok := raw.(map[string]any); ok && f.Kind() == reflect.Struct && !f.Addr().Type().Implements(unmarshaler) {
		decodeStruct(path, obj, f, problems)
		return
	}
	if list, ok := raw.([]any); ok && f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
		// A list of objects (hook matchers, their hooks): item by item,
		// so each bad item is named by its index.
		items := reflect.MakeSlice(f.Type(), len(list), len(list))
		for i, item := range list {
			decodeValue(fmt.Sprintf("%s[%d]", path, i), item, items.Index(i), problems)
		}
		f.Set(items)
		return
	}
	decodeWhole(path, raw, f.Addr().Interface(), problems)
}

// decodeWhole decodes raw into dst, refusing unknown keys in it.
func decodeWhole(path string, raw any, dst any, problems *[]string) {
	b, err := json.Marshal(raw)
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(dst)
	}
	if err != nil {
		*problems = append(*problems, path+": "+describeDecodeError(err))
	}
}

// describeDecodeError says what was wrong without Go type names where
// JSON names say it better.
func describeDecodeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := ""
		if te.Field != "" {
			where = " at " + te.Field
		}
		return fmt.Sprintf("want %s, got a JSON %s%s", jsonKind(te.Type), te.Value, where)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names a Go type as the JSON it reads.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// follow goes through pointers (allocating nil ones) to the value they
// point at.
func follow(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	return v
}

// jsonFields maps the JSON keys of struct v to its fields, embedded
// structs' fields promoted as encoding/json promotes them (a shallower
// field wins).
func jsonFields(v reflect.Value) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	var embedded []reflect.Value
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			embedded = append(embedded, v.Field(i))
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out[name] = v.Field(i)
	}
	for _, e := range embedded {
		for name, f := range jsonFields(follow(e)) {
			if _, ok := out[name]; !ok {
				out[name] = f
			}
		}
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
