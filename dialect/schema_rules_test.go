package dialect

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// probedTool is one tool as a model sees it (its published schema) and as
// toolgate checks it (decode, the validate tags).
type probedTool struct {
	where  string // "cline read_file", "claude_code Edit", "internal edit_text"
	schema json.RawMessage
	typ    reflect.Type
	decode func(raw json.RawMessage) error
}

// TestSchemasMatchValidation: for every tool of every dialect's pool
// (Cline's, Claude Code's, the Messages API's; the openai formats carry the
// same schemas) and every internal tool, the published JSON Schema and
// toolgate's own input check give the same verdict on every probe input:
// each parameter left out or null, each bound met and missed,
// a value outside each enum, an unknown parameter. A JSON Schema validator
// (jsonschema-go's) is the oracle for the schema's verdict; the check is
// the pipeline's own (coordinator.DecodeInput, DecodeDialectInput).
func TestSchemasMatchValidation(t *testing.T) {
	tools := probedTools(t)
	for _, pt := range tools {
		t.Run(pt.where, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal(pt.schema, &s); err != nil {
				t.Fatal(err)
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				t.Fatalf("schema does not resolve: %v\n%s", err, pt.schema)
			}
			probes := probeInputs(&s, pt.typ)
			if len(probes) < 3 {
				t.Fatalf("only %d probes from %s", len(probes), pt.schema)
			}
			for _, p := range probes {
				raw, _ := json.Marshal(p.value)
				var inst any
				_ = json.Unmarshal(raw, &inst)
				schemaErr := rs.Validate(inst)
				toolErr := pt.decode(raw)
				if schemaErr != nil && toolErr == nil && slices.Contains(listedStricter[pt.where], p.what) {
					continue
				}
				if (schemaErr == nil) != (toolErr == nil) {
					t.Errorf("%s: %s\n  schema says: %v\n  toolgate says: %v\n  schema: %s", p.what, raw, schemaErr, toolErr, pt.schema)
				}
			}
		})
	}
}

// listedStricter are the probes a pool's schema refuses on purpose where
// toolgate's check runs the call: the client's own definition requires
// the parameter, its handler does without it (Cline's use_mcp_tool
// arguments), and the pool lists the client's definition. A model that
// follows the schema is never refused; only the other way round is a
// fault.
var listedStricter = map[string][]string{
	"cline use_mcp_tool": {"arguments left out"},
}

// probedTools builds every static tool of handlers.Default() (internal
// ones included) and every dialect tool, and checks that each pool lists
// exactly the schema probed.
func probedTools(t *testing.T) []probedTool {
	t.Helper()
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	v := coordinator.NewValidator()
	env := tool.Env{Workspace: ws, Validate: v, Commands: &tool.CommandConfig{}, Registerer: prometheus.NewRegistry()}
	published := map[string]json.RawMessage{} // "dialect name" -> schema
	c := coordinator.New(coordinator.Options{Workspace: ws, Tools: handlers.Default(), Dialects: All()})
	t.Cleanup(c.Close)
	// Cline's pool lists the registry's schemas with task_progress added
	// (the cline dialect's ListSchema), which the pipeline takes out of
	// every call before decoding: probed so.
	clineListed := map[string]json.RawMessage{}
	for _, ti := range c.Pool(api.DialectCline, nil) {
		clineListed[ti.Name] = ti.InputSchema
	}
	var out []probedTool
	for _, r := range handlers.Default() {
		tl := r.Factory(r.Name, env)
		if tl == nil {
			continue
		}
		where, schema := "cline "+r.Name, tl.InputSchema
		if listed, ok := clineListed[r.Name]; ok {
			schema = listed
		}
		if r.Internal {
			where, schema = "internal "+r.Name, tl.InputSchema
		}
		published[where] = schema
		out = append(out, probedTool{where: where, schema: schema, typ: tl.InputType(), decode: func(raw json.RawMessage) error {
			_, err := coordinator.DecodeInput(tl, v, withoutTaskProgress(raw))
			return err
		}})
	}
	for _, d := range All() {
		for _, dt := range d.Tools {
			where := string(d.Name) + " " + dt.Name
			published[where] = dt.InputSchema
			out = append(out, probedTool{where: where, schema: dt.InputSchema, typ: dt.InputType(), decode: func(raw json.RawMessage) error {
				_, err := coordinator.DecodeDialectInput(dt, v, raw)
				return err
			}})
		}
	}
	// The pools a model is shown list these very schemas.
	for _, d := range api.Dialects() {
		pool := c.Pool(d, nil)
		if len(pool) == 0 {
			t.Fatalf("dialect %s lists no tools", d)
		}
		for _, ti := range pool {
			want, ok := published[string(d)+" "+ti.Name]
			if !ok {
				t.Errorf("dialect %s lists %s, which is not probed", d, ti.Name)
				continue
			}
			if string(ti.InputSchema) != string(want) {
				t.Errorf("dialect %s lists %s with another schema than the one probed", d, ti.Name)
			}
		}
	}
	return out
}

// withoutTaskProgress is an input as the pipeline decodes it: Cline's
// task_progress taken out first.
func withoutTaskProgress(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["task_progress"]; !ok {
		return raw
	}
	delete(m, "task_progress")
	out, _ := json.Marshal(m)
	return out
}

// probe is one input and what it tries.
type probe struct {
	what  string
	value map[string]any
}

// probeInputs derives from a tool's schema a valid input holding every
// parameter, then that input with each parameter broken or moved to each
// of its bounds in turn (nested objects and list items too).
func probeInputs(s *jsonschema.Schema, typ reflect.Type) []probe {
	full := validValue(s, true).(map[string]any)
	probes := []probe{{"every parameter valid", full}, {"only the required parameters", validValue(s, false).(map[string]any)}}
	withUnknown := maps.Clone(full)
	withUnknown["no_such_parameter"] = "x"
	probes = append(probes, probe{"an unknown parameter", withUnknown})
	var walk func(path string, s *jsonschema.Schema, typ reflect.Type, set func(mutate func(map[string]any)) map[string]any)
	walk = func(path string, s *jsonschema.Schema, typ reflect.Type, set func(mutate func(map[string]any)) map[string]any) {
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			ps := s.Properties[name]
			field, omitempty := fieldOf(typ, name)
			at := path + name
			probes = append(probes, probe{at + " left out", set(func(m map[string]any) { delete(m, name) })})
			// Null: a required parameter's is refused, an optional one's
			// reads as left out; the schema must say the same either way.
			// Cline sends strings only (apps/vscode/src/core/assistant-message/
			// index.ts v4.0.12: params: Partial<Record<ToolParamName, string>>);
			// null comes from Messages API and OpenAI clients.
			probes = append(probes, probe{at + " null", set(func(m map[string]any) { m[name] = nil })})
			for _, bad := range boundaryValues(ps) {
				if omitempty && reflect.ValueOf(bad.value).IsZero() {
					// Go's omitempty: a zero value is the parameter left
					// out, which the probe above covers.
					continue
				}
				probes = append(probes, probe{at + " " + bad.what, set(func(m map[string]any) { m[name] = bad.value })})
			}
			switch schemaType(ps) {
			case "object":
				walk(at+".", ps, field, func(mutate func(map[string]any)) map[string]any {
					return set(func(m map[string]any) {
						inner := maps.Clone(validValue(ps, true).(map[string]any))
						mutate(inner)
						m[name] = inner
					})
				})
			case "array":
				// An item that is null: the published items are never
				// nullable, so toolgate must refuse it rather than read a
				// zero item (an empty glob, an empty edit).
				probes = append(probes, probe{at + " with a null item", set(func(m map[string]any) { m[name] = []any{nil} })})
				if schemaType(ps.Items) == "object" {
					walk(at+"[0].", ps.Items, elemOf(field), func(mutate func(map[string]any)) map[string]any {
						return set(func(m map[string]any) {
							inner := maps.Clone(validValue(ps.Items, true).(map[string]any))
							mutate(inner)
							m[name] = []any{inner}
						})
					})
				}
			}
		}
	}
	walk("", s, typ, func(mutate func(map[string]any)) map[string]any {
		m := maps.Clone(full)
		mutate(m)
		return m
	})
	return probes
}

// validValue is a value the schema accepts: the first enum value, the
// smallest length or number its bounds allow; all properties of an object
// when all is set, else only the required ones.
func validValue(s *jsonschema.Schema, all bool) any {
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch schemaType(s) {
	case "string":
		if s.Format == "uri" {
			return "https://example.com/"
		}
		n := 1
		if s.MinLength != nil {
			n = max(*s.MinLength, 1)
		}
		return strings.Repeat("a", n)
	case "integer", "number":
		x := 1.0
		if s.Minimum != nil {
			x = max(*s.Minimum, 1)
		}
		if s.ExclusiveMinimum != nil {
			x = max(x, *s.ExclusiveMinimum+1)
		}
		if s.Maximum != nil {
			x = min(x, *s.Maximum)
		}
		return x
	case "boolean":
		return true
	case "array":
		n := 1
		if s.MinItems != nil {
			n = max(*s.MinItems, 1)
		}
		list := make([]any, n)
		for i := range list {
			list[i] = validValue(s.Items, all)
		}
		return list
	case "object":
		m := map[string]any{}
		for name, p := range s.Properties {
			if all || slices.Contains(s.Required, name) {
				m[name] = validValue(p, all)
			}
		}
		return m
	}
	return "a" // a free-form value (any JSON)
}

// boundaryValues are the values at and just past each bound of s, a value
// outside its enum, and the zero value of its type.
func boundaryValues(s *jsonschema.Schema) []probe1 {
	var out []probe1
	add := func(what string, v any) { out = append(out, probe1{what, v}) }
	switch schemaType(s) {
	case "string":
		add("empty", "")
		if s.MinLength != nil {
			add(fmt.Sprintf("at minLength %d", *s.MinLength), strings.Repeat("a", *s.MinLength))
			if *s.MinLength > 0 {
				add("below minLength", strings.Repeat("a", *s.MinLength-1))
			}
		}
		if s.MaxLength != nil {
			add(fmt.Sprintf("at maxLength %d", *s.MaxLength), strings.Repeat("a", *s.MaxLength))
			add("above maxLength", strings.Repeat("a", *s.MaxLength+1))
		}
		if len(s.Enum) > 0 {
			add("outside the enum", "zz-not-listed")
		}
		if s.Format == "uri" {
			add("not a URL", "not a url")
		}
	case "integer", "number":
		add("zero", 0)
		add("negative", -1)
		for _, b := range []*float64{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum} {
			if b != nil {
				add(fmt.Sprintf("at %v", *b), *b)
				add(fmt.Sprintf("below %v", *b), *b-1)
				add(fmt.Sprintf("above %v", *b), *b+1)
			}
		}
	case "boolean":
		add("false", false)
	case "array":
		add("empty", []any{})
		if s.MaxItems != nil {
			list := make([]any, *s.MaxItems+1)
			for i := range list {
				list[i] = validValue(s.Items, true)
			}
			add("above maxItems", list)
		}
	}
	return out
}

type probe1 struct {
	what  string
	value any
}

// schemaType is the schema's one non-null type.
func schemaType(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	if s.Type != "" {
		return s.Type
	}
	for _, x := range s.Types {
		if x != "null" {
			return x
		}
	}
	return ""
}

// fieldOf finds the struct field a JSON property decodes into and whether
// its json tag has omitempty.
func fieldOf(typ reflect.Type, name string) (reflect.Type, bool) {
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == nil || typ.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name {
			return f.Type, strings.Contains(opts, "omitempty")
		}
	}
	return nil, false
}

func elemOf(typ reflect.Type) reflect.Type {
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == nil || typ.Kind() != reflect.Slice && typ.Kind() != reflect.Array {
		return nil
	}
	return typ.Elem()
}
