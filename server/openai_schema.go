package server

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Tool schemas as OpenAI's clients take them.
//
// Without strict, a tool's parameters are its input schema with the root
// made an object schema the SDKs' types accept: `properties` and
// `required` present (the Agents SDK's JsonObjectSchemaStrict,
// @openai/agents-core dist/types/helpers.d.ts, requires both), no
// `$schema` (MCP servers built with zod send one).
//
// With strict, they follow the Structured Outputs subset
// (platform.openai.com/docs/guides/structured-outputs, "Supported
// schemas"): every object closed (additionalProperties false) with every
// property required, a property that was optional made nullable instead,
// and only the supported keywords. chat.completions.parse() runs only
// tools marked strict (openai-node lib/parser validateInputTools). A
// keyword dropped here only widens what the schema admits: toolgate still
// validates the call against the tool's own schema, and a null stands for
// a parameter left out.

// strictKeywords are the keywords strict mode supports; others are dropped.
var strictKeywords = map[string]bool{
	"type": true, "description": true, "title": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "enum": true, "const": true, "anyOf": true,
	"$ref": true, "$defs": true, "definitions": true, "pattern": true, "format": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true,
	"exclusiveMinimum": true, "minItems": true, "maxItems": true,
}

// strictFormats are the string formats strict mode supports.
var strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

var (
	jsonFalse = json.RawMessage("false")
	jsonNull  = json.RawMessage("null")
)

// plainParameters is a tool's input schema as OpenAI's formats declare it
// without strict: the root an object schema with properties and required.
func plainParameters(raw json.RawMessage) json.RawMessage {
	v, err := readOrdered(raw)
	root, ok := v.(jsonObject)
	if err != nil || !ok {
		return raw
	}
	root = without(root, "$schema")
	if _, ok := root.get("type"); !ok {
		root = append(jsonObject{{"type", json.RawMessage(`"object"`)}}, root...)
	}
	if _, ok := root.get("properties"); !ok {
		root = root.set("properties", jsonObject{})
	}
	if _, ok := root.get("required"); !ok {
		root = root.set("required", []any{})
	}
	out, err := json.Marshal(root)
	if err != nil {
		return raw
	}
	return out
}

// strictParameters is a tool's input schema in strict mode's subset, or an
// error saying why it has none (an open object, allOf).
func strictParameters(raw json.RawMessage) (json.RawMessage, error) {
	v, err := readOrdered(raw)
	if err != nil {
		return nil, err
	}
	root, ok := v.(jsonObject)
	if !ok {
		return nil, fmt.Errorf("the input schema is not an object")
	}
	if _, ok := root.get("type"); !ok {
		root = append(jsonObject{{"type", json.RawMessage(`"object"`)}}, root...)
	}
	if !hasType(root, "object") {
		return nil, fmt.Errorf("the input schema's root is not an object schema")
	}
	s, err := strictSchema(root, true)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// strictSchema rewrites one schema node (see the comment at the top).
func strictSchema(s jsonObject, root bool) (jsonObject, error) {
	if _, ok := s.get("allOf"); ok {
		return nil, fmt.Errorf("allOf has no strict form")
	}
	if one, ok := s.get("oneOf"); ok {
		// oneOf admits what exactly one branch does; anyOf, which strict
		// mode has, admits a little more, and the real schema judges.
		s = without(s, "anyOf").set("anyOf", one)
	}
	out := jsonObject{}
	for _, m := range s {
		if !strictKeywords[m.Key] {
			continue
		}
		if m.Key == "format" && !slices.Contains(strictFormats, unquote(m.Value)) {
			continue
		}
		out = append(out, m)
	}
	props, hasProps := out.get("properties")
	if hasType(out, "object") || hasProps {
		var err error
		if out, err = strictObject(out, props, root); err != nil {
			return nil, err
		}
	}
	for i, m := range out {
		var err error
		switch m.Key {
		case "items":
			out[i].Value, err = strictNode(m.Value)
		case "anyOf":
			out[i].Value, err = strictList(m.Value)
		case "$defs", "definitions":
			out[i].Value, err = strictMembers(m.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// strictObject closes an object schema and requires all its properties,
// the optional ones made nullable.
func strictObject(s jsonObject, props any, root bool) (jsonObject, error) {
	p, _ := props.(jsonObject)
	if extra, ok := s.get("additionalProperties"); len(p) == 0 && !root && (!ok || !isFalse(extra)) {
		return nil, fmt.Errorf("an object of free-form keys has no strict form")
	}
	required := map[string]bool{}
	if r, ok := s.get("required"); ok {
		list, _ := r.([]any)
		for _, k := range list {
			required[unquote(k)] = true
		}
	}
	newProps := make(jsonObject, 0, len(p))
	names := make([]any, 0, len(p))
	for _, m := range p {
		child, ok := m.Value.(jsonObject)
		if !ok {
			return nil, fmt.Errorf("property %s has no schema object", m.Key)
		}
		child, err := strictSchema(child, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Key, err)
		}
		if !required[m.Key] {
			child = nullable(child)
		}
		newProps = append(newProps, jsonMember{m.Key, child})
		quoted, _ := json.Marshal(m.Key)
		names = append(names, json.RawMessage(quoted))
	}
	s = s.set("properties", newProps).set("required", names).set("additionalProperties", jsonFalse)
	if _, ok := s.get("type"); !ok {
		s = append(jsonObject{{"type", json.RawMessage(`"object"`)}}, s...)
	}
	return s, nil
}

// nullable lets a schema also take null, as strict mode marks an optional
// property.
func nullable(s jsonObject) jsonObject {
	if t, ok := s.get("type"); ok {
		types := []any{t}
		if list, ok := t.([]any); ok {
			types = list
		}
		if !slices.ContainsFunc(types, func(v any) bool { return unquote(v) == "null" }) {
			types = append(slices.Clone(types), json.RawMessage(`"null"`))
		}
		s = s.set("type", types)
		if e, ok := s.get("enum"); ok {
			if list, ok := e.([]any); ok && !slices.ContainsFunc(list, isNull) {
				s = s.set("enum", append(slices.Clone(list), jsonNull))
			}
		}
		return s
	}
	null := jsonObject{{"type", json.RawMessage(`"null"`)}}
	if a, ok := s.get("anyOf"); ok {
		if list, ok := a.([]any); ok {
			return s.set("anyOf", append(slices.Clone(list), null))
		}
	}
	return jsonObject{{"anyOf", []any{s, null}}}
}

func strictNode(v any) (any, error) {
	s, ok := v.(jsonObject)
	if !ok {
		return nil, fmt.Errorf("a subschema is not an object")
	}
	return strictSchema(s, false)
}

func strictList(v any) (any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("anyOf is not a list")
	}
	out := make([]any, len(list))
	for i, b := range list {
		var err error
		if out[i], err = strictNode(b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func strictMembers(v any) (any, error) {
	defs, ok := v.(jsonObject)
	if !ok {
		return nil, fmt.Errorf("definitions are not an object")
	}
	out := make(jsonObject, len(defs))
	for i, m := range defs {
		d, err := strictNode(m.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Key, err)
		}
		out[i] = jsonMember{m.Key, d}
	}
	return out, nil
}

// hasType reports whether a schema's type is or includes t.
func hasType(s jsonObject, t string) bool {
	v, ok := s.get("type")
	if !ok {
		return false
	}
	if list, ok := v.([]any); ok {
		return slices.ContainsFunc(list, func(x any) bool { return unquote(x) == t })
	}
	return unquote(v) == t
}

func without(s jsonObject, key string) jsonObject {
	return slices.DeleteFunc(slices.Clone(s), func(m jsonMember) bool { return m.Key == key })
}

// unquote is a JSON string scalar's value, else "".
func unquote(v any) string {
	raw, ok := v.(json.RawMessage)
	if !ok {
		return ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func isNull(v any) bool {
	raw, ok := v.(json.RawMessage)
	return ok && string(raw) == "null"
}

func isFalse(v any) bool {
	raw, ok := v.(json.RawMessage)
	return ok && string(raw) == "false"
}
