package coordinator

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// clineParamAliases are the parameter names Cline's native tool specs
// give a tool in place of the registry's, by tool: with native tool
// calling, the native-next-gen variant (Claude, and the other next-gen
// families that are not GPT-5 or Gemini 3) names the path of
// write_to_file and replace_in_file "absolutePath" (Cline's
// tools/write_to_file.ts and replace_in_file.ts). Cline's WriteToFileToolHandler, which also serves
// new_rule, reads `params.path || params.absolutePath`: path wins when
// both are given and not empty.
var clineParamAliases = map[string]map[string]string{
	"write_to_file":   {"absolutePath": "path"},
	"replace_in_file": {"absolutePath": "path"},
	"new_rule":        {"absolutePath": "path"},
}

// renameClineAliases rewrites a Cline call's aliased parameters to the
// registry's names, as Cline's handler reads them: the alias's value
// becomes the parameter when the parameter is absent or an empty string,
// and the alias is dropped either way (it is no parameter of the tool).
// Input that is not a JSON object, or names no alias, is returned
// unchanged.
func renameClineAliases(name string, raw json.RawMessage) json.RawMessage {
	aliases := clineParamAliases[name]
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

// emptyString reports whether a JSON value is "" or null, which Cline's
// `a || b` passes over.
func emptyString(v json.RawMessage) bool {
	var s *string
	return json.Unmarshal(v, &s) == nil && (s == nil || *s == "")
}

// clineEmptyIsMissing drops the required string parameters of a Cline
// call whose value is "": Cline's handlers test them with `!value`
// (WriteToFileToolHandler's content, ExecuteCommandToolHandler's command,
// every path), so an empty one is a missing one, answered with Cline's
// missing-parameter text and counted as a mistake. Input without an empty
// string is returned unchanged.
func clineEmptyIsMissing(raw json.RawMessage, input reflect.Type) json.RawMessage {
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
