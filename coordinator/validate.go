package coordinator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/go-playground/validator/v10"
)

// NewValidator returns the one validator shared by every tool. It reports
// fields by their JSON names, so messages match what the model sent.
func NewValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}

// InputError lists what is wrong with a tool input, field by field.
type InputError struct {
	Summary string
	Fields  map[string]string
}

func (e *InputError) Error() string {
	if len(e.Fields) == 0 {
		return e.Summary
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(e.Summary)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n- %s: %s", k, e.Fields[k])
	}
	return b.String()
}

// decodeInput decodes raw JSON into a fresh input of the tool's type and
// validates it. Unknown fields are refused: a misspelt parameter must not be
// silently dropped.
func decodeInput(t *Tool, v *validator.Validate, raw json.RawMessage) (any, error) {
	in := t.newInput()
	if err := decodeInto(t.Name, in, v, raw); err != nil {
		return nil, err
	}
	return in, nil
}

// decodeInto decodes raw JSON into in, a pointer to a tool's input
// struct, refusing unknown fields, and validates it.
func decodeInto(tool string, in any, v *validator.Validate, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		return decodeError(tool, err)
	}
	if err := v.Struct(in); err != nil {
		return validationError(tool, err)
	}
	return nil
}

// asError is errors.As for the error types a mapping may return.
func asError[T error](err error, target *T) bool { return errors.As(err, target) }

func decodeError(tool string, err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		return &InputError{
			Summary: fmt.Sprintf("Invalid input for tool %s.", tool),
			Fields:  map[string]string{field: fmt.Sprintf("must be %s, got %s", jsonKind(typeErr.Type), typeErr.Value)},
		}
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return &InputError{
			Summary: fmt.Sprintf("Invalid input for tool %s.", tool),
			Fields:  map[string]string{strings.Trim(name, `"`): "unknown parameter"},
		}
	}
	return &InputError{Summary: fmt.Sprintf("Invalid input for tool %s: the input must be a JSON object (%s).", tool, strings.TrimPrefix(msg, "json: "))}
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

func validationError(tool string, err error) error {
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return &InputError{Summary: fmt.Sprintf("Invalid input for tool %s: %v", tool, err)}
	}
	fields := map[string]string{}
	for _, fe := range verrs {
		ns := fe.Namespace()
		if _, after, ok := strings.Cut(ns, "."); ok {
			ns = after
		}
		fields[ns] = ruleMessage(fe)
	}
	return &InputError{Summary: fmt.Sprintf("Invalid input for tool %s.", tool), Fields: fields}
}

// ruleMessage says in words what a failed validate tag asked for.
func ruleMessage(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "min", "gte":
		return "must be at least " + fe.Param()
	case "max", "lte":
		return "must be at most " + fe.Param()
	case "gt":
		return "must be greater than " + fe.Param()
	case "oneof":
		return "must be one of: " + fe.Param()
	case "excludesall":
		return "must not contain any of " + fmt.Sprintf("%q", fe.Param())
	}
	if fe.Param() != "" {
		return fmt.Sprintf("failed %s=%s", fe.Tag(), fe.Param())
	}
	return "failed " + fe.Tag()
}
