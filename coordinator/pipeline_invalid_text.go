package coordinator

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// invalidInputText is what the model reads for an input of a registry
// tool that failed validation. When required parameters are all that is
// missing, it is the dialect's text for the first of them in the order the
// handler checks them (the order of the input's fields,
// tool.Texts.MissingParam); otherwise toolgate's sentences, field by
// field. Either way the dialect wraps it as a tool error. mistakes is the
// session's count of consecutive mistakes, this one included.
func invalidInputText(texts tool.Texts, t *tool.Tool, raw json.RawMessage, err error, mistakes int) string {
	if field := firstMissing(t, err); field != "" {
		return texts.ToolError(texts.MissingParam(t.Name, field, stringParam(raw, "path"), mistakes))
	}
	return texts.ToolError(err.Error())
}

// firstMissing is the required parameter the handler would report
// first when every problem of err is a missing top-level parameter, else "".
func firstMissing(t *tool.Tool, err error) string {
	ie, ok := err.(*InputError)
	if !ok || len(ie.Fields) == 0 {
		return ""
	}
	for field, msg := range ie.Fields {
		if msg != "is required" || strings.Contains(field, ".") {
			return ""
		}
	}
	for _, name := range inputFieldOrder(t) {
		if _, ok := ie.Fields[name]; ok {
			return name
		}
	}
	return ""
}

// inputFieldOrder lists the JSON names of a tool's input fields in their
// declared order, which follows the order of the handlers' parameter
// checks.
func inputFieldOrder(t *tool.Tool) []string {
	typ := reflect.TypeOf(t.NewInput()).Elem()
	var names []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// stringParam is a string parameter of a raw input, "" when absent.
func stringParam(raw json.RawMessage, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m[name], &s)
	return s
}
