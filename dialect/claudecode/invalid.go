package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// Claude Code checks a tool's input against its schema (a Zod schema)
// before anything else and answers a failure in one of two forms,
// recorded from the real CLI by internal/conformance/claudecode:
//
//   - when every issue is a missing parameter, an unexpected one or a
//     wrong type: "InputValidationError: Read failed due to the following
//     issue(s):" and a sentence an issue;
//   - otherwise the issues themselves as indented JSON (Zod's code, its
//     details, the path, the message).
//
// claudeInvalidInput finds the issues again from the input as sent and
// the tool's schema, which says the same as the struct that refused it.

// Zod's names of the issues Claude Code reports (they are not toolgate's
// tool error codes).
const (
	zodInvalidType      = "invalid_type"
	zodInvalidValue     = "invalid_value"
	zodInvalidFormat    = "invalid_format"
	zodUnrecognizedKeys = "unrecognized_keys"
)

// zodIssue is one issue of Claude Code's schema check, its fields in the
// order Zod writes them.
type zodIssue struct {
	Expected string `json:"expected,omitempty"`
	Code     string `json:"code"`
	Values   []any  `json:"values,omitempty"`
	Format   string `json:"format,omitempty"`
	Keys     []any  `json:"keys,omitempty"`
	Path     []any  `json:"path"`
	Message  string `json:"message"`
	// sentence is the issue in the first form, "" when it has none.
	sentence string
}

// schemaNode is the part of a JSON Schema the check reads.
type schemaNode struct {
	Type       any                    `json:"type"`
	Properties map[string]*schemaNode `json:"properties"`
	Order      []string               `json:"-"`
	Required   []string               `json:"required"`
	Enum       []any                  `json:"enum"`
	Format     string                 `json:"format"`
	Items      *schemaNode            `json:"items"`
}

// claudeInvalidInput words an invalid input as Claude Code does; "" when
// it finds no issue the schema states (the coordinator's words stand).
func claudeInvalidInput(t *tool.DialectTool, raw json.RawMessage) string {
	var schema schemaNode
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
		return ""
	}
	schema.Order = propertyOrder(t.InputSchema)
	var in any
	if err := json.Unmarshal(raw, &in); err != nil {
		return ""
	}
	if _, ok := in.(map[string]any); !ok {
		return "" // not an object (arguments that are no JSON): toolgate's words say so
	}
	issues := check(&schema, t.InputSchema, in, nil)
	if len(issues) == 0 {
		return ""
	}
	for i := range issues {
		if issues[i].Path == nil {
			issues[i].Path = []any{} // Zod writes the top as []
		}
	}
	simple := true
	for _, is := range issues {
		simple = simple && is.sentence != ""
	}
	if simple {
		word := "issue"
		if len(issues) > 1 {
			word = "issues"
		}
		lines := make([]string, len(issues))
		for i, is := range issues {
			lines[i] = is.sentence
		}
		return fmt.Sprintf("<tool_use_error>InputValidationError: %s failed due to the following %s:\n%s</tool_use_error>",
			t.Name, word, strings.Join(lines, "\n"))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(issues)
	return "<tool_use_error>InputValidationError: " + strings.TrimSuffix(b.String(), "\n") + "</tool_use_error>"
}

// check lists the issues of value v against schema s (raw is s as JSON,
// for its property order): missing required parameters first, in the
// schema's order, then each property's own issues, then unexpected keys.
func check(s *schemaNode, raw json.RawMessage, v any, path []any) []zodIssue {
	typ := zodType(s)
	if typ == "" {
		return nil
	}
	if got := jsType(v); got != typ && !(typ == "number" && got == "number") {
		return []zodIssue{typeIssue(path, typ, got)}
	}
	var out []zodIssue
	switch typ {
	case "object":
		obj := v.(map[string]any)
		order := s.Order
		if order == nil {
			order = propertyOrder(raw)
		}
		for _, name := range order {
			p := s.Properties[name]
			x, ok := obj[name]
			switch {
			case !ok && slices.Contains(s.Required, name):
				out = append(out, typeIssue(append(slices.Clone(path), name), zodType(p), "undefined"))
			case ok:
				out = append(out, check(p, propertyRaw(raw, name), x, append(slices.Clone(path), name))...)
			}
		}
		names := make([]string, 0, len(obj))
		for name := range obj {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if s.Properties[name] == nil {
				out = append(out, zodIssue{Code: zodUnrecognizedKeys, Keys: []any{name}, Path: path,
					Message: fmt.Sprintf("Unrecognized key: %q", name), sentence: fmt.Sprintf("An unexpected parameter `%s` was provided", name)})
			}
		}
	case "array":
		for i, x := range v.([]any) {
			if s.Items != nil {
				out = append(out, check(s.Items, itemsRaw(raw), x, append(slices.Clone(path), i))...)
			}
		}
	}
	// toolgate's schemas list null among an optional value's options;
	// Claude Code's do not.
	enum := slices.DeleteFunc(slices.Clone(s.Enum), func(e any) bool { return e == nil })
	if len(enum) > 0 && !slices.Contains(enum, v) {
		quoted := make([]string, len(enum))
		for i, e := range enum {
			js, _ := json.Marshal(e)
			quoted[i] = string(js)
		}
		out = append(out, zodIssue{Code: zodInvalidValue, Values: enum, Path: path,
			Message: "Invalid option: expected one of " + strings.Join(quoted, "|")})
	}
	if str, ok := v.(string); ok && s.Format == "uri" {
		if u, err := url.Parse(str); err != nil || u.Scheme == "" || u.Host == "" {
			out = append(out, zodIssue{Code: zodInvalidFormat, Format: "url", Path: path, Message: "Invalid URL"})
		}
	}
	return out
}

// typeIssue is a value of the wrong type, or a missing one ("undefined").
func typeIssue(path []any, want, got string) zodIssue {
	name := pathName(path)
	is := zodIssue{Expected: want, Code: zodInvalidType, Path: path,
		Message: fmt.Sprintf("Invalid input: expected %s, received %s", want, got)}
	if got == "undefined" {
		is.sentence = fmt.Sprintf("The required parameter `%s` is missing", name)
	} else {
		is.sentence = fmt.Sprintf("The parameter `%s` type is expected as `%s` but provided as `%s`", name, want, got)
	}
	return is
}

// pathName names a parameter by its path as Claude Code's sentences do:
// todos[0].activeForm.
func pathName(path []any) string {
	var b strings.Builder
	for _, p := range path {
		if i, ok := p.(int); ok {
			fmt.Fprintf(&b, "[%d]", i)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
}

// zodType is a schema's type as Zod names it (integer is a number),
// its non-null type when the schema allows null too.
func zodType(s *schemaNode) string {
	if s == nil {
		return ""
	}
	var t string
	switch x := s.Type.(type) {
	case string:
		t = x
	case []any:
		for _, e := range x {
			if e != "null" {
				t = fmt.Sprint(e)
			}
		}
	}
	if t == "integer" {
		return "number"
	}
	return t
}

// jsType names a decoded JSON value's type as JavaScript's typeof does
// (arrays and null apart).
func jsType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	}
	return "object"
}

// propertyOrder lists a schema's properties in the order it declares
// them (a Go map forgets it).
func propertyOrder(raw json.RawMessage) []string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	var names []string
	if _, err := dec.Token(); err != nil {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return names
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names
		}
	}
	return names
}

func propertyRaw(raw json.RawMessage, name string) json.RawMessage {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(raw, &s)
	return s.Properties[name]
}

func itemsRaw(raw json.RawMessage) json.RawMessage {
	var s struct {
		Items json.RawMessage `json:"items"`
	}
	_ = json.Unmarshal(raw, &s)
	return s.Items
}
