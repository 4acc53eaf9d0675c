package claudecode

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// decodeMapped decodes and validates a call's input as the coordinator
// does, and maps it.
func decodeMapped(t *testing.T, name, input string) (tool.Mapping, error) {
	t.Helper()
	dt := claudeTool(t, name)
	in, err := coordinator.DecodeDialectInput(dt, validator.New(validator.WithRequiredStructEnabled()), json.RawMessage(input))
	if err != nil {
		return tool.Mapping{}, err
	}
	return dt.Map(tool.MapEnv{Workspace: nil, Dir: &tool.ShellDir{}}, in)
}

// TestClaudeSchemaCheckDefaults: what Claude Code 2.1.197's schema lists
// as required is required in the dialect's schema, and its check fills
// in or drops what the real CLI does (recorded by the conformance
// harness): TaskOutput without block or timeout waits 30 s, a TodoWrite
// item's id is dropped, a TodoWrite item without activeForm is refused.
func TestClaudeSchemaCheckDefaults(t *testing.T) {
	for _, tc := range []struct{ name, input string }{{"TaskOutput", `{"task_id":"b1"}`}, {"TaskOutput", `{"task_id":"b1","block":true}`}} {
		m, err := decodeMapped(t, tc.name, tc.input)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.name, tc.input, err)
		}
		if in, ok := m.Input.(handlers.ShellOutputInput); !ok || in.Wait != 30000 {
			t.Errorf("%s %s maps to %#v, want a wait of Claude Code's default 30000 ms", tc.name, tc.input, m.Input)
		}
	}
	m, err := decodeMapped(t, "TaskOutput", `{"task_id":"b1","block":false}`)
	if in, ok := m.Input.(handlers.ShellOutputInput); err != nil || !ok || in.Wait != 0 {
		t.Errorf("TaskOutput block false = %+v, %v, want no wait", m.Input, err)
	}
	if _, err := decodeMapped(t, "TaskOutput", `{"task_id":"b1","wait":true}`); err == nil {
		t.Error("TaskOutput with an unknown key was accepted")
	}
	m, err = decodeMapped(t, "TodoWrite", `{"todos":[{"content":"Run the tests","status":"pending","activeForm":"Running the tests","id":"7"}]}`)
	if err != nil {
		t.Fatalf("TodoWrite with an item id: %v", err)
	}
	if in, ok := m.Input.(handlers.TodoWriteInput); !ok || len(in.Todos) != 1 || in.Todos[0].ActiveForm != "Running the tests" || in.Todos[0].ID != "" {
		t.Errorf("TodoWrite maps to %#v", m.Input)
	}
	if _, err := decodeMapped(t, "TodoWrite", `{"todos":[{"content":"Run the tests","status":"pending"}]}`); err == nil {
		t.Error("TodoWrite without activeForm was accepted")
	}
}

// TestClaudeSchemaRequired: the schema the model sees requires what
// Claude Code's does, and offers Bash's dangerouslyDisableSandbox.
func TestClaudeSchemaRequired(t *testing.T) {
	for _, tc := range []struct{ tool, want string }{
		{"TaskOutput", `"required":["task_id","block","timeout"]`},
		{"TodoWrite", `"required":["content","status","activeForm"]`},
		{"Bash", `"dangerouslyDisableSandbox":{`},
	} {
		if raw := claudeTool(t, tc.tool).InputSchema; !bytes.Contains(raw, []byte(tc.want)) {
			t.Errorf("%s schema lacks %s:\n%s", tc.tool, tc.want, raw)
		}
	}
	if raw := claudeTool(t, "TodoWrite").InputSchema; bytes.Contains(raw, []byte(`"id"`)) {
		t.Errorf("TodoWrite's items list an id:\n%s", raw)
	}
}

// TestClaudeBashUnsandboxed: dangerouslyDisableSandbox reaches the
// mapping, for the policy to weigh; left out, it asks nothing.
func TestClaudeBashUnsandboxed(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  bool
	}{
		{`{"command":"ls","dangerouslyDisableSandbox":true}`, true},
		{`{"command":"ls","dangerouslyDisableSandbox":true,"run_in_background":true}`, true},
		{`{"command":"ls","dangerouslyDisableSandbox":false}`, false},
		{`{"command":"ls"}`, false},
	} {
		m, err := decodeMapped(t, "Bash", tc.input)
		if err != nil || m.Unsandboxed != tc.want {
			t.Errorf("Bash %s: Unsandboxed = %v (%v), want %v", tc.input, m.Unsandboxed, err, tc.want)
		}
	}
}
