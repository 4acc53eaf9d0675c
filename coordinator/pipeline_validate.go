package coordinator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"
	"github.com/toolgate/toolgate/coordinator/tool"
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

// DecodeInput decodes raw JSON into a fresh input of the tool's type and
// validates it, as the pipeline's prepare stage does. Unknown fields are
// refused: a misspelt parameter must not be silently dropped. The error is
// an *InputError.
func DecodeInput(t *tool.Tool, v *validator.Validate, raw json.RawMessage) (any, error) {
	return decodeCoerced(t, v, coerceStrings(raw, t.ParamTypes()))
}

// decodeCoerced is DecodeInput for input that coerceStrings has already
// rewritten (the pipeline's prepare stage keeps the coerced input), so
// that a call's input is coerced once.
func decodeCoerced(t *tool.Tool, v *validator.Validate, raw json.RawMessage) (any, error) {
	in := t.NewInput()
	var shape inputShape
	shape.keys, shape.flat = t.FlatKeys()
	shape.required, shape.requiredOnly = t.RequiredFields()
	if err := decodeInto(t.Name, in, v, raw, shape); err != nil {
		return nil, err
	}
	return in, nil
}

// DecodeDialectInput decodes and validates a dialect tool's input, as the
// dialect's inbound edge does before mapping it.
func DecodeDialectInput(dt *tool.DialectTool, v *validator.Validate, raw json.RawMessage) (any, error) {
	in := dt.NewInput()
	if err := decodeInto(dt.Name, in, v, raw, inputShape{}); err != nil {
		return nil, err
	}
	return in, nil
}

// inputShape is what a tool knows of its input type that spares work on
// each input: its tool.Tool.FlatKeys and RequiredFields. The zero value
// knows nothing.
type inputShape struct {
	keys         []string
	flat         bool
	required     []int
	requiredOnly bool
}

// decodeInto decodes raw JSON into in, a pointer to a tool's input
// struct, refusing unknown fields, and validates it.
func decodeInto(tool string, in any, v *validator.Validate, raw json.RawMessage, shape inputShape) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := notObject(tool, raw); err != nil {
		return err
	}
	if err := decodeStrict(in, raw, shape.keys, shape.flat); err != nil {
		return decodeError(tool, err)
	}
	// Only well-formed input gets here, so the walk sees all of it.
	if at, ok := nullItem(raw, reflect.TypeOf(in)); ok {
		return &InputError{
			Summary: fmt.Sprintf("Invalid input for tool %s.", tool),
			Fields:  map[string]string{at: "must not be null (leave the item out)"},
		}
	}
	if requiredSet(in, shape.required, shape.requiredOnly) {
		return nil
	}
	if err := v.Struct(in); err != nil {
		return validationError(tool, reflect.TypeOf(in).Elem(), err)
	}
	return nil
}

// decodeWithDecoder decodes raw into in, refusing unknown fields at any
// depth.
func decodeWithDecoder(in any, raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(in)
}

// notObject explains an input that is not a JSON object. A JSON string
// is arguments that were sent as text: OpenAI's formats carry a call's
// arguments as a string, and toolgate passes one that is not valid JSON
// on as that string, so the model learns its arguments did not parse.
func notObject(tool string, raw json.RawMessage) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] == '{' {
		return nil
	}
	var text string
	if trimmed[0] == '"' && json.Unmarshal(trimmed, &text) == nil {
		var v any
		err := json.Unmarshal([]byte(text), &v)
		if err == nil {
			return &InputError{Summary: fmt.Sprintf("Invalid input for tool %s: the arguments are a JSON string holding JSON, not a JSON object: %s. Send the object itself.", tool, clip(text, 200))}
		}
		return &InputError{Summary: fmt.Sprintf("Invalid input for tool %s: the arguments are not valid JSON (%s): %s. Send them as one JSON object.", tool, strings.TrimPrefix(err.Error(), "json: "), clip(text, 200))}
	}
	kind := "a number"
	switch trimmed[0] {
	case '[':
		kind = "an array"
	case 't', 'f':
		kind = "a boolean"
	}
	return &InputError{Summary: fmt.Sprintf("Invalid input for tool %s: the arguments must be a JSON object, got %s.", tool, kind)}
}

// clip shortens s to at most n bytes (on a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
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

func validationError(tool string, inType reflect.Type, err error) error {
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
		fields[ns] = ruleMessage(fe, inType)
	}
	return &InputError{Summary: fmt.Sprintf("Invalid input for tool %s.", tool), Fields: fields}
}

// ruleMessage says in words what a failed validate tag asked for. Every
// tag a tool uses has a sentence here (NewTool refuses a tool whose input
// uses one that has none), so a validator tag never reaches a model.
func ruleMessage(fe validator.FieldError, inType reflect.Type) string {
	if say, ok := ruleSentences[fe.Tag()]; ok {
		param := fe.Param()
		if strings.HasSuffix(fe.Tag(), "field") {
			param = jsonFieldName(inType, param)
		}
		return say(param, fe.Kind())
	}
	return "is not valid"
}

// ruleSentences maps validate tags to sentences; param is the tag's
// parameter and kind the field's kind (a length for strings and lists, a
// value for numbers).
var ruleSentences = map[string]func(param string, kind reflect.Kind) string{
	"required": func(string, reflect.Kind) string { return "is required" },
	"min":      func(p string, k reflect.Kind) string { return "must be at least " + p + sizeUnit(k) },
	"gte":      func(p string, k reflect.Kind) string { return "must be at least " + p + sizeUnit(k) },
	"max":      func(p string, k reflect.Kind) string { return "must be at most " + p + sizeUnit(k) },
	"lte":      func(p string, k reflect.Kind) string { return "must be at most " + p + sizeUnit(k) },
	"gt":       func(p string, k reflect.Kind) string { return "must be more than " + p + sizeUnit(k) },
	"lt":       func(p string, k reflect.Kind) string { return "must be less than " + p + sizeUnit(k) },
	"len":      func(p string, k reflect.Kind) string { return "must be exactly " + p + sizeUnit(k) },
	"url":      func(string, reflect.Kind) string { return "must be a URL" },
	"oneof": func(p string, _ reflect.Kind) string {
		return "must be one of: " + strings.Join(strings.Fields(p), ", ")
	},
	"excludesall": func(p string, _ reflect.Kind) string { return fmt.Sprintf("must not contain any of %q", p) },
	"gtefield":    func(p string, _ reflect.Kind) string { return "must not be less than " + p },
	"gtfield":     func(p string, _ reflect.Kind) string { return "must be greater than " + p },
}

// sizeUnit names what a size limit counts for a field of this kind.
func sizeUnit(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return " characters long"
	case reflect.Slice, reflect.Array:
		return " items"
	case reflect.Map:
		return " entries"
	}
	return ""
}

// jsonFieldName turns a Go field name from a tag parameter (StartLine)
// into the parameter name the model knows (start_line), from the input
// struct's json tag.
func jsonFieldName(inType reflect.Type, goName string) string {
	for inType != nil && inType.Kind() == reflect.Pointer {
		inType = inType.Elem()
	}
	if inType != nil && inType.Kind() == reflect.Struct {
		if f, ok := inType.FieldByName(goName); ok {
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				return name
			}
		}
	}
	return goName
}

// checkRuleSentences panics when a validate tag of t (or of a struct it
// holds) has no sentence: a programmer error to catch at start-up.
func checkRuleSentences(tool string, t reflect.Type, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		for _, rule := range strings.FieldsFunc(f.Tag.Get("validate"), func(r rune) bool { return r == ',' || r == '|' }) {
			tag, _, _ := strings.Cut(rule, "=")
			if _, ok := ruleSentences[tag]; !ok && tag != "omitempty" && tag != "dive" {
				panic(fmt.Sprintf("coordinator: tool %s: validate tag %q on %s has no sentence in ruleSentences", tool, tag, f.Name))
			}
		}
		checkRuleSentences(tool, f.Type, seen)
	}
}
