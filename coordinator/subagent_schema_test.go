package coordinator

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// TestSubagentSchemasMatchValidation: use_subagents and use_subagent_<name>
// are built here, not in handlers, so handlers' TestSchemasMatchValidation,
// which probes handlers.Default() and the dialects' tools, does not reach
// them. For each, the published schema (jsonschema-go's validator is the
// oracle) and the pipeline's own check (DecodeInput) give the same verdict
// on every probe: all parameters, only the required ones, each left out,
// empty, null or of the wrong type, and an unknown
// parameter.
func TestSubagentSchemasMatchValidation(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "reviewer.md"), []byte("---\nname: reviewer\ndescription: d\n---\nReview.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := New(Options{Config: Config{AgentConfig: AgentConfig{Subagents: SubagentConfig{Dir: dir}}}})
	t.Cleanup(c.Close)
	names := c.agents.Names()
	if !slices.Equal(names, []string{tool.SubagentPrefix + "reviewer", UseSubagents}) {
		t.Fatalf("subagent tools = %v", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			tl := c.agents.Tool(name, tool.Env{})
			var s jsonschema.Schema
			if err := json.Unmarshal(tl.InputSchema, &s); err != nil {
				t.Fatal(err)
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			full, required := map[string]any{}, map[string]any{}
			for p := range s.Properties {
				full[p] = "a task"
				if slices.Contains(s.Required, p) {
					required[p] = "a task"
				}
			}
			if len(required) == 0 {
				t.Fatalf("%s requires no parameter: %s", name, tl.InputSchema)
			}
			probes := map[string]map[string]any{"every parameter": full, "only the required ones": required}
			unknown := maps.Clone(full)
			unknown["no_such_parameter"] = "x"
			probes["an unknown parameter"] = unknown
			for p := range s.Properties {
				for what, v := range map[string]any{"left out": nil, "null": nil, "empty": "", "a number": 7} {
					m := maps.Clone(full)
					if what == "left out" {
						delete(m, p)
					} else {
						m[p] = v
					}
					probes[p+" "+what] = m
				}
			}
			for what, m := range probes {
				raw, _ := json.Marshal(m)
				var inst any
				_ = json.Unmarshal(raw, &inst)
				schemaErr := rs.Validate(inst)
				_, checkErr := DecodeInput(tl, c.validate, raw)
				if (schemaErr == nil) != (checkErr == nil) {
					t.Errorf("%s: %s\n  schema says: %v\n  toolgate says: %v\n  schema: %s", what, raw, schemaErr, checkErr, tl.InputSchema)
				}
			}
		})
	}
}
