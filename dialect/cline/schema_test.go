package cline

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestListSchema: Cline's pool lists task_progress on every tool but
// execute_command (as cline@2.18.0 defines its tools) and marks
// toolgate's own parameters as extensions.
func TestListSchema(t *testing.T) {
	props := func(t *testing.T, name, schema string) map[string]map[string]any {
		t.Helper()
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(listSchema(name, json.RawMessage(schema)), &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties
	}
	read := props(t, "read_file", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	if tp := read["task_progress"]; fmt.Sprint(tp["type"]) != "[null string]" || tp["description"] != taskProgressDescription {
		t.Errorf("read_file task_progress = %v, want Cline's optional string", tp)
	}
	cmd := props(t, "execute_command", `{"type":"object","properties":{"command":{"type":"string"},"cwd":{"type":"string"},"background":{"type":"boolean"},`+
		`"tty":{"type":"boolean"},"stdin":{"type":"boolean"},"yield_ms":{"type":"integer"}}}`)
	if _, ok := cmd["task_progress"]; ok {
		t.Error("execute_command lists task_progress; Cline's has none")
	}
	for _, p := range []string{"cwd", "background", "tty", "stdin", "yield_ms"} {
		if cmd[p][ExtensionKey] != true {
			t.Errorf("execute_command %s = %v, want marked %s", p, cmd[p], ExtensionKey)
		}
	}
	if _, ok := cmd["command"][ExtensionKey]; ok {
		t.Error("execute_command's command is marked as an extension")
	}
	if got := listSchema("x", json.RawMessage(`not json`)); string(got) != "not json" {
		t.Errorf("an unreadable schema became %s", got)
	}
}

// TestListSchemaRequired: Cline's pool lists use_mcp_tool's arguments
// required, as Cline's definition does, keeping the schema's own required
// parameters; other tools' lists are left as they are.
func TestListSchemaRequired(t *testing.T) {
	required := func(t *testing.T, name, schema string) []string {
		t.Helper()
		var s struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(listSchema(name, json.RawMessage(schema)), &s); err != nil {
			t.Fatal(err)
		}
		return s.Required
	}
	mcp := `{"type":"object","properties":{"server_name":{"type":"string"},"tool_name":{"type":"string"},"arguments":{}},"required":["server_name","tool_name"]}`
	if got := fmt.Sprint(required(t, "use_mcp_tool", mcp)); got != "[server_name tool_name arguments]" {
		t.Errorf("use_mcp_tool required = %s, want [server_name tool_name arguments]", got)
	}
	twice := `{"type":"object","properties":{"arguments":{}},"required":["arguments"]}`
	if got := fmt.Sprint(required(t, "use_mcp_tool", twice)); got != "[arguments]" {
		t.Errorf("use_mcp_tool required = %s, want arguments once", got)
	}
	if got := required(t, "read_file", `{"type":"object","properties":{"path":{"type":"string"},"arguments":{}},"required":["path"]}`); fmt.Sprint(got) != "[path]" {
		t.Errorf("read_file required = %v, want [path]", got)
	}
	if got := required(t, "use_mcp_tool", `{"type":"object","properties":{"x":{}}}`); got != nil {
		t.Errorf("a schema without arguments got required %v", got)
	}
}
