package coordinator

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// renameAliases rewrites a call's aliased parameters (a dialect's
// ParamAliases for the tool) to the registry's names: the alias's value
// becomes the parameter when the parameter is absent or an empty string,
// and the alias is dropped either way (it is no parameter of the tool).
// Input that is not a JSON object, or names no alias, is returned
// unchanged.
func renameAliases(aliases map[string]string, raw json.RawMessage) json.RawMessage {
	if aliases == nil {
		return raw
	}
	var obj map[string]json.RawMessage
	changed := false
	for alias, canonical := range aliases {
		if !bytes.Contains(raw, []byte(alias)) {
			continue
		}
		if obj == nil {
			if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
				return raw
			}
		}
		v, ok := obj[alias]
		if !ok {
			continue
		}
		delete(obj, alias)
		changed = true
		if cur, has := obj[canonical]; !has || emptyString(cur) {
			obj[canonical] = v
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

// emptyString reports whether a JSON value is "" or null, which a
// client's `a || b` passes over.
func emptyString(v json.RawMessage) bool {
	var s *string
	return json.Unmarshal(v, &s) == nil && (s == nil || *s == "")
}

// emptyIsMissing drops the required string parameters of a call whose
// value is "" (a dialect's EmptyIsMissing), so an empty one is a missing
// one, answered with the dialect's missing-parameter text and counted as
// a mistake. Input without an empty string is returned unchanged.
func emptyIsMissing(raw json.RawMessage, input reflect.Type) json.RawMessage {
	if !bytes.Contains(raw, []byte(`""`)) {
		return raw
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return raw
	}
	changed := false
	for i := range input.NumField() {
		f := input.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		typ := f.Type
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.String || !strings.Contains(f.Tag.Get("validate"), "required") {
			continue
		}
		if v, ok := obj[name]; ok && string(v) == `""` {
			delete(obj, name)
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
