package tool

import "github.com/google/jsonschema-go/jsonschema"

// paramTypes maps each top-level property of a schema to the one JSON type
// a string value may be coerced to (boolean, integer, number, array,
// object). Properties that are strings, or that accept several types, are
// left out: their strings stay strings.
func paramTypes(s *jsonschema.Schema) map[string]string {
	out := map[string]string{}
	for name, p := range s.Properties {
		if t := singleType(p); t != "" && t != "string" && t != "null" {
			out[name] = t
		}
	}
	return out
}

// singleType is the schema's one non-null type, or "" when it has none or
// several.
func singleType(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	if s.Type != "" {
		return s.Type
	}
	t := ""
	for _, x := range s.Types {
		if x == "null" {
			continue
		}
		if t != "" {
			return ""
		}
		t = x
	}
	return t
}
