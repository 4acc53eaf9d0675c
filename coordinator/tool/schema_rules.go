package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// An input struct is the one source of truth for a tool's input: json
// tags name the parameters, validate tags constrain them, and the
// published JSON Schema is derived from both, so what a model is shown and
// what the validator checks cannot drift (applyRules):
//
//   - A parameter is required in the schema exactly when its validate tag
//     says required. The validator's required means "not the zero value":
//     for a string, not empty (the schema adds minLength 1, as Cline's
//     handlers read an empty parameter as a missing one); for a pointer,
//     list or object, present and not null. A parameter that must be sent
//     but may be false or empty is therefore a pointer (or a list).
//   - min/max/len/gt/lt/gte/lte become minLength/maxLength, minItems/
//     maxItems, minProperties/maxProperties or minimum/maximum by the
//     field's kind; oneof becomes enum, url format uri with a
//     pattern (format alone is an annotation), excludesall a pattern. Rules after dive constrain the items of a list.
//   - Only rules that compare two fields (gtefield, gtfield) have no JSON
//     Schema keyword; the validator alone checks them.
//   - An optional parameter (no required rule) may be null, which reads as
//     the parameter left out: Go's decoder leaves the field at its zero
//     value, as if absent. Models send null for parameters they do not
//     use, and OpenAI strict-mode clients must (every parameter listed,
//     the optional ones nullable), so the schema says so: its type lists
//     "null" beside the field's type, and an enum lists null too
//     (allowNull). A required parameter is never null.
//
// A rule under omitempty constrains a value that is there: the validator
// reads a zero value as absent, the schema shows the bound of a present one.

// inputSchema is the published JSON Schema of input type In, its validate
// rules included, parsed and encoded. what names the tool in a panic.
func inputSchema[In any](what string) (*jsonschema.Schema, json.RawMessage) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", what, err))
	}
	applyRules(schema, reflect.TypeFor[In]())
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("%s schema: %v", what, err))
	}
	return schema, raw
}

// applyRules writes the validate rules of struct type t (and of the
// structs it holds) into its schema s. jsonschema.For's own required list
// (every field without omitempty) is replaced by the validate tags' one.
func applyRules(s *jsonschema.Schema, t reflect.Type) {
	t = deref(t)
	if s == nil || t.Kind() != reflect.Struct {
		return
	}
	s.Required = nil
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && deref(f.Type).Kind() == reflect.Struct {
			panic("tool: an input struct must not embed a struct (" + f.Name + "): its fields' rules would be lost")
		}
		name := jsonName(f)
		if name == "" {
			continue
		}
		p := s.Properties[name]
		if p == nil {
			continue
		}
		own, elem, _ := strings.Cut(f.Tag.Get("validate"), "dive")
		required := false
		for _, rule := range splitRules(own) {
			if rule == "required" {
				required = true
				if !slices.Contains(s.Required, name) {
					s.Required = append(s.Required, name)
				}
			}
			applyRule(p, f.Type, rule)
		}
		if !required {
			allowNull(p)
		}
		ft := deref(f.Type)
		if ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array {
			for _, rule := range splitRules(elem) {
				applyRule(p.Items, ft.Elem(), rule)
			}
			applyRules(p.Items, ft.Elem())
			continue
		}
		applyRules(p, ft)
	}
}

// applyRule writes one validate rule ("max=10") of a field of type t into
// the field's schema p. Rules the schema has no keyword for are left to
// the validator (see the comment above applyRules).
func applyRule(p *jsonschema.Schema, t reflect.Type, rule string) {
	if p == nil {
		return
	}
	tag, param, _ := strings.Cut(rule, "=")
	kind := deref(t).Kind()
	switch tag {
	case "required":
		// The validator's required is "not the zero value": for a string,
		// not empty (as Cline's handlers read a missing parameter); for a
		// pointer, list or object, present. A required number or boolean
		// would refuse 0 or false, which no schema keyword says: such a
		// field must be a pointer.
		dropNull(p) // present and not null
		switch t.Kind() {
		case reflect.String:
			if p.MinLength == nil && p.Enum == nil {
				one := 1
				p.MinLength = &one
			}
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			panic(fmt.Sprintf("tool: validate required on a %s refuses its zero value; use a pointer", t.Kind()))
		}
	case "min", "gte":
		setLower(p, kind, param, 0)
	case "gt":
		setLower(p, kind, param, 1)
	case "max", "lte":
		setUpper(p, kind, param, 0)
	case "lt":
		setUpper(p, kind, param, 1)
	case "len":
		setLower(p, kind, param, 0)
		setUpper(p, kind, param, 0)
	case "oneof":
		if p.MinLength != nil && *p.MinLength == 1 {
			p.MinLength = nil // the enum says it: a required string's non-empty bound is redundant
		}
		p.Enum = nil
		for _, v := range strings.Fields(param) {
			p.Enum = append(p.Enum, enumValue(kind, v))
		}
	case "url":
		// format is only an annotation to most JSON Schema validators: the
		// pattern says what the validator checks, a scheme and more.
		p.Format = "uri"
		p.Pattern = `^[A-Za-z][A-Za-z0-9+.\-]*:\S+$`
	case "excludesall":
		p.Pattern = "^[^" + classEscaper.Replace(param) + "]*$"
	}
}

// dropNull removes "null" from the types a pointer, list or map field's
// schema allows (jsonschema.For allows it, as Go decodes null into them).
func dropNull(p *jsonschema.Schema) {
	if len(p.Types) == 0 {
		return
	}
	types := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
	if len(types) == 1 {
		p.Type, p.Types = types[0], nil
	} else {
		p.Types = types
	}
}

// allowNull lets an optional parameter's schema p accept null, which the
// decoder reads as the parameter left out: "null" joins its types (a
// schema with no type accepts any JSON, null included) and its enum.
func allowNull(p *jsonschema.Schema) {
	switch {
	case p.Type != "" && p.Type != "null":
		p.Types, p.Type = []string{"null", p.Type}, ""
	case len(p.Types) > 0 && !slices.Contains(p.Types, "null"):
		p.Types = append([]string{"null"}, p.Types...)
	}
	if len(p.Enum) > 0 && !slices.Contains(p.Enum, nil) {
		p.Enum = append(p.Enum, nil)
	}
}

// classEscaper escapes the characters special inside a regexp character
// class.
var classEscaper = strings.NewReplacer(`\`, `\\`, `]`, `\]`, `^`, `\^`, `-`, `\-`, `[`, `\[`)

// setLower sets the lower bound a rule's parameter gives: a length for
// strings, a count for lists and objects, a value for numbers. exclusive
// is 1 for gt, whose bound the value must pass.
func setLower(p *jsonschema.Schema, kind reflect.Kind, param string, exclusive int) {
	switch kind {
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		n, err := strconv.Atoi(param)
		if err != nil {
			panic(fmt.Sprintf("tool: rule parameter %q is not a count", param))
		}
		n += exclusive
		switch kind {
		case reflect.String:
			p.MinLength = &n
		case reflect.Map:
			p.MinProperties = &n
		default:
			p.MinItems = &n
		}
	default:
		x := number(param)
		if exclusive == 1 {
			p.ExclusiveMinimum = &x
		} else {
			p.Minimum = &x
		}
	}
}

// setUpper is setLower's upper bound; exclusive is 1 for lt.
func setUpper(p *jsonschema.Schema, kind reflect.Kind, param string, exclusive int) {
	switch kind {
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		n, err := strconv.Atoi(param)
		if err != nil {
			panic(fmt.Sprintf("tool: rule parameter %q is not a count", param))
		}
		n -= exclusive
		switch kind {
		case reflect.String:
			p.MaxLength = &n
		case reflect.Map:
			p.MaxProperties = &n
		default:
			p.MaxItems = &n
		}
	default:
		x := number(param)
		if exclusive == 1 {
			p.ExclusiveMaximum = &x
		} else {
			p.Maximum = &x
		}
	}
}

func number(param string) float64 {
	x, err := strconv.ParseFloat(param, 64)
	if err != nil {
		panic(fmt.Sprintf("tool: rule parameter %q is not a number", param))
	}
	return x
}

// enumValue is a oneof value as the JSON type of the field.
func enumValue(kind reflect.Kind, v string) any {
	switch kind {
	case reflect.String:
		return v
	case reflect.Bool:
		return v == "true"
	}
	return number(v)
}

// splitRules splits a validate tag into its rules, leaving out omitempty
// (the schema already reads an absent value as allowed).
func splitRules(tag string) []string {
	var out []string
	for _, r := range strings.Split(tag, ",") {
		if r = strings.TrimSpace(r); r != "" && r != "omitempty" {
			out = append(out, r)
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
