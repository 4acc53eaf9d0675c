package server

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPIExamplesValidate: every operation of openapi.yaml has a
// summary and a declared tag, and every parameter, request body and
// response body carries an example, so generated clients and Postman's
// importer get working values instead of placeholders; each JSON example
// validates against its schema.
func TestOpenAPIExamplesValidate(t *testing.T) {
	doc, _ := loadSpec(t)
	tags := map[string]bool{}
	for _, tag := range doc.Tags {
		tags[tag.Name] = true
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.Summary == "" {
				add("%s: no summary", where)
			}
			if len(op.Tags) == 0 {
				add("%s: no tag", where)
			}
			for _, tag := range op.Tags {
				if !tags[tag] {
					add("%s: tag %q is not declared under tags", where, tag)
				}
			}
			for _, p := range operationParams(item, op) {
				checkExample(add, fmt.Sprintf("%s: parameter %s", where, p.Name), p.Example, p.Examples, p.Schema, true)
			}
			if op.RequestBody != nil {
				for mt, media := range op.RequestBody.Value.Content {
					checkExample(add, fmt.Sprintf("%s: request body %s", where, mt), media.Example, media.Examples, media.Schema, isJSON(mt))
				}
			}
			for code, resp := range op.Responses.Map() {
				for mt, media := range resp.Value.Content {
					checkExample(add, fmt.Sprintf("%s: response %s %s", where, code, mt), media.Example, media.Examples, media.Schema, isJSON(mt))
				}
			}
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// operationParams are an operation's parameters, the path's included
// unless the operation redefines one (same name and place).
func operationParams(item *openapi3.PathItem, op *openapi3.Operation) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	seen := map[string]bool{}
	for _, list := range []openapi3.Parameters{op.Parameters, item.Parameters} {
		for _, ref := range list {
			p := ref.Value
			if key := p.In + " " + p.Name; !seen[key] {
				seen[key] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func isJSON(mediaType string) bool { return strings.HasSuffix(mediaType, "json") }

// checkExample wants an example (one, or named ones) and, for JSON,
// every example valid against the schema.
func checkExample(add func(string, ...any), where string, example any, examples openapi3.Examples, schema *openapi3.SchemaRef, validate bool) {
	values := map[string]any{}
	if example != nil {
		values["example"] = example
	}
	for name, ex := range examples {
		values[name] = ex.Value.Value
	}
	if len(values) == 0 && schema != nil && schema.Value != nil && schema.Value.Example != nil {
		values["schema example"] = schema.Value.Example
	}
	if len(values) == 0 {
		add("%s: no example", where)
		return
	}
	if !validate || schema == nil || schema.Value == nil {
		return
	}
	for name, v := range values {
		if err := schema.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
			add("%s: %s does not match the schema: %v", where, name, err)
		}
	}
}
