package claudecode

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// claudeTool is the claude_code dialect's tool of that name.
func claudeTool(t *testing.T, name string) *tool.DialectTool {
	t.Helper()
	for _, dt := range Dialect().Tools {
		if dt.Name == name {
			return dt
		}
	}
	t.Fatalf("no %s in the claude_code dialect", name)
	return nil
}

// TestClaudeInvalidInput: inputs Claude Code 2.1.197 refuses in its
// schema check, worded as it words them (texts recorded from the real
// CLI by internal/conformance/claudecode).
func TestClaudeInvalidInput(t *testing.T) {
	for _, tc := range []struct{ name, tool, input, want string }{
		{"missing and unexpected", "Read", `{"path":"/a"}`,
			"<tool_use_error>InputValidationError: Read failed due to the following issues:\nThe required parameter `file_path` is missing\nAn unexpected parameter `path` was provided</tool_use_error>"},
		{"wrong type", "Read", `{"file_path":"/a","offset":"two"}`,
			"<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe parameter `offset` type is expected as `number` but provided as `string`</tool_use_error>"},
		{"enum", "Grep", `{"pattern":"x","output_mode":"lines"}`,
			"<tool_use_error>InputValidationError: [\n  {\n    \"code\": \"invalid_value\",\n    \"values\": [\n      \"content\",\n      \"files_with_matches\",\n      \"count\"\n    ],\n    \"path\": [\n      \"output_mode\"\n    ],\n    \"message\": \"Invalid option: expected one of \\\"content\\\"|\\\"files_with_matches\\\"|\\\"count\\\"\"\n  }\n]</tool_use_error>"},
		{"nested enum", "TodoWrite", `{"todos":[{"content":"x","status":"later","activeForm":"x"}]}`,
			"<tool_use_error>InputValidationError: [\n  {\n    \"code\": \"invalid_value\",\n    \"values\": [\n      \"pending\",\n      \"in_progress\",\n      \"completed\"\n    ],\n    \"path\": [\n      \"todos\",\n      0,\n      \"status\"\n    ],\n    \"message\": \"Invalid option: expected one of \\\"pending\\\"|\\\"in_progress\\\"|\\\"completed\\\"\"\n  }\n]</tool_use_error>"},
		{"nested missing", "TodoWrite", `{"todos":[{"content":"x","status":"pending"}]}`,
			"<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe required parameter `todos[0].activeForm` is missing</tool_use_error>"},
		{"valid input has no issue", "Read", `{"file_path":"/a"}`, ""},
		{"not an object keeps toolgate's words", "Read", `"{\"file_path\":"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := claudeInvalidInput(claudeTool(t, tc.tool), json.RawMessage(tc.input)); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestClaudeTaskTexts: TaskOutput and TaskStop reword shell_output's and
// kill_shell's answers in Claude Code 2.1.197's form.
func TestClaudeTaskTexts(t *testing.T) {
	out := taskOutputResult("b1", true, tool.TextResult("<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\nstarted\nfinished\n</stdout>\n"), "")
	want := "<retrieval_status>success</retrieval_status>\n\n<task_id>b1</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\nstarted\nfinished\n</output>"
	if got := out.LastText(); got != want {
		t.Errorf("TaskOutput = %q, want %q", got, want)
	}
	if got := lastText(taskOutputResult("nope", false, tool.Result{IsError: true}, api.ToolCodeNotFound)); got != "<tool_use_error>No task found with ID: nope</tool_use_error>" {
		t.Errorf("unknown task = %q", got)
	}
	stop := taskStopResult("b2", tool.TextResult("Successfully killed shell: b2 (sleep 60)"), "")
	if got := stop.LastText(); got != `{"message":"Successfully stopped task: b2 (sleep 60)","task_id":"b2","task_type":"local_bash","command":"sleep 60"}` {
		t.Errorf("TaskStop = %q", got)
	}
	res := webFetchStatus(tool.Result{Content: []api.Content{api.TextContent("https://x.test/a answered 404 Not Found.\nnot here")}, IsError: true}, api.ToolCodeFetchFailed)
	if res.IsError || res.LastText()[:39] != "The server returned HTTP 404 Not Found." {
		t.Errorf("WebFetch 404 = %+v", res)
	}
}

func lastText(r tool.Result) string { return r.LastText() }
