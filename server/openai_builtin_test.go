package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// builtinAnswer is a Responses answer holding built-in tools' output items
// (openai-node src/resources/responses/responses.ts:
// ResponseApplyPatchToolCallOutput, ResponseFunctionShellToolCallOutput,
// ResponseInputItem.LocalShellCallOutput).
type builtinAnswer struct {
	Output []struct {
		Type            string `json:"type"`
		ID              string `json:"id"`
		CallID          string `json:"call_id"`
		Status          string `json:"status"`
		MaxOutputLength *int   `json:"max_output_length"`
		Output          any    `json:"output"`
	} `json:"output"`
	Calls []api.CallRecord `json:"calls"`
}

// shellEntries reads a shell_call_output's output list.
func shellEntries(t *testing.T, v any) []shellOutput {
	t.Helper()
	raw, _ := json.Marshal(v)
	var out []shellOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("shell output %s: %v", raw, err)
	}
	return out
}

func newBuiltinServer(t *testing.T) (*testServer, string) {
	t.Helper()
	cfg := coordinator.DefaultConfig()
	cfg.Commands.OutputDir = t.TempDir()
	return newDialectServer(t, cfg, map[string]string{"a.txt": "alpha\nbeta\n", "gone.txt": "x\n"})
}

// TestOpenAIApplyPatchCall: an apply_patch_call's operation runs as
// apply_patch and is answered by apply_patch_call_output (before, the
// item was passed over: HTTP 200, no output, nothing changed).
func TestOpenAIApplyPatchCall(t *testing.T) {
	ts, dir := newBuiltinServer(t)
	sess := newSessionOf(t, ts, map[string]any{"permissions": map[string]any{"allow": []string{"apply_patch"}}})
	path := "/v1/sessions/" + sess.ID + "/messages"
	op := func(id, typ, file, diff string) map[string]any {
		o := map[string]any{"type": typ, "path": file}
		if diff != "" {
			o["diff"] = diff
		}
		return map[string]any{"type": "apply_patch_call", "id": "apc_" + id, "call_id": id, "status": "completed", "operation": o}
	}
	items := []any{
		op("call_new", "create_file", "new.txt", "+made by apply_patch_call\n"),
		op("call_upd", "update_file", "a.txt", "@@\n alpha\n-beta\n+gamma"),
		op("call_del", "delete_file", "gone.txt", ""),
		op("call_bad", "update_file", "a.txt", "@@\n-no such line\n+x\n"),
	}
	got := decodeBody[builtinAnswer](t, ts.do(t, http.MethodPost, path, items), http.StatusOK)
	if len(got.Output) != 4 {
		t.Fatalf("output = %+v", got.Output)
	}
	for i, want := range []struct{ id, status string }{{"call_new", "completed"}, {"call_upd", "completed"}, {"call_del", "completed"}, {"call_bad", "failed"}} {
		o := got.Output[i]
		if o.Type != "apply_patch_call_output" || o.CallID != want.id || o.Status != want.status || o.Output == "" {
			t.Errorf("output %d = %+v, want apply_patch_call_output %s %s", i, o, want.id, want.status)
		}
		if got.Calls[i].Name != "apply_patch" {
			t.Errorf("call %d ran as %s, want apply_patch", i, got.Calls[i].Name)
		}
	}
	for file, want := range map[string]string{"new.txt": "made by apply_patch_call\n", "a.txt": "alpha\ngamma\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, file)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", file, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt is still there: %v", err)
	}
	// A diff that would start another file's section is not one operation.
	resp := ts.do(t, http.MethodPost, path, []any{op("call_two", "create_file", "x.txt", "+x\n*** Add File: y.txt\n+y\n")})
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a diff with a section line: status = %d, want 400", resp.StatusCode)
	}
}

// TestOpenAIShellCalls: shell_call and local_shell_call run through the
// command path (permission rules decide; a denied command is answered,
// not run) and are answered in their output shapes.
func TestOpenAIShellCalls(t *testing.T) {
	ts, dir := newBuiltinServer(t)
	sess := newSessionOf(t, ts, map[string]any{"permissions": map[string]any{
		"allow": []string{"execute_command"}, "deny": []string{"execute_command(rm:*)"}}})
	path := "/v1/sessions/" + sess.ID + "/messages"
	items := []any{
		map[string]any{"type": "shell_call", "id": "sh_1", "call_id": "call_sh", "status": "completed", "environment": nil,
			"action": map[string]any{"commands": []string{"printf 'hi\\n'", "rm a.txt", "echo oops >&2; exit 3"}, "timeout_ms": 20000, "max_output_length": nil}},
	}
	got := decodeBody[builtinAnswer](t, ts.do(t, http.MethodPost, path, items), http.StatusOK)
	if len(got.Output) != 1 {
		t.Fatalf("output = %+v", got.Output)
	}
	sh := got.Output[0]
	if sh.Type != "shell_call_output" || sh.CallID != "call_sh" || sh.Status != "completed" {
		t.Fatalf("shell output = %+v", sh)
	}
	entries := shellEntries(t, sh.Output)
	code := func(o shellOutput) int {
		if o.Outcome.ExitCode == nil {
			return -99
		}
		return *o.Outcome.ExitCode
	}
	if len(entries) != 3 || entries[0].Stdout != "hi" || code(entries[0]) != 0 ||
		entries[1].Stdout != "" || !strings.Contains(entries[1].Stderr, "denied") || code(entries[1]) != 1 ||
		!strings.Contains(entries[2].Stdout, "oops") || code(entries[2]) != 3 {
		t.Errorf("shell entries = %+v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Errorf("the denied rm ran: %v", err)
	}
	for i, want := range []string{"call_sh#1", "call_sh#2", "call_sh#3"} {
		if got.Calls[i].ToolUseID != want || got.Calls[i].Name != "execute_command" {
			t.Errorf("call %d = %+v, want execute_command %s", i, got.Calls[i], want)
		}
	}
	if got.Calls[1].Status != api.StatusDenied {
		t.Errorf("rm: status %s, want denied", got.Calls[1].Status)
	}

	// An exported variable is a construct the rules do not allow by
	// themselves: the command waits for approval, as execute_command's would.
	items = []any{
		map[string]any{"type": "local_shell_call", "id": "lsh_1", "call_id": "call_lsh", "status": "completed",
			"action": map[string]any{"type": "exec", "command": []string{"bash", "-lc", "echo $GREETING; exit 2"}, "env": map[string]string{"GREETING": "hello there"}}},
	}
	answered := make(chan builtinAnswer, 1)
	go func() {
		resp, err := ts.Client().Do(ts.request(t, http.MethodPost, path, items))
		var a builtinAnswer
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&a)
			resp.Body.Close()
		}
		if err != nil {
			t.Error(err)
		}
		answered <- a
	}()
	waitCallState(t, ts.Server, sess.ID, "call_lsh", api.StateAwaitingApproval)
	if resp := ts.do(t, http.MethodPost, "/v1/sessions/"+sess.ID+"/calls/call_lsh/decision", map[string]any{"decision": "approve"}); resp.StatusCode != http.StatusOK {
		t.Fatalf("approve: status %d", resp.StatusCode)
	}
	got = receive(t, answered)
	if len(got.Output) != 1 {
		t.Fatalf("output = %+v", got.Output)
	}
	lsh := got.Output[0]
	var local struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode int `json:"exit_code"`
		} `json:"metadata"`
	}
	if s, _ := lsh.Output.(string); lsh.Type != "local_shell_call_output" || lsh.ID != "call_lsh" || json.Unmarshal([]byte(s), &local) != nil ||
		local.Output != "hello there" || local.Metadata.ExitCode != 2 {
		t.Errorf("local shell output = %+v (%+v)", lsh, local)
	}
	items = []any{map[string]any{"type": "shell_call", "call_id": "call_clip", "action": map[string]any{"commands": []string{"printf 0123456789"}, "max_output_length": 4}}}
	got = decodeBody[builtinAnswer](t, ts.do(t, http.MethodPost, path, items), http.StatusOK)
	clip := got.Output[0]
	if e := shellEntries(t, clip.Output); clip.MaxOutputLength == nil || *clip.MaxOutputLength != 4 || len(e) != 1 || e[0].Stdout != "0123" {
		t.Errorf("clipped output = %+v", clip)
	}
}

// TestOpenAIItemsNotRun: a client-side call toolgate cannot run is refused
// by name, never passed over in silence; what the API ran itself and
// history items are passed over.
func TestOpenAIItemsNotRun(t *testing.T) {
	ts, _ := newBuiltinServer(t)
	read := map[string]any{"type": "function_call", "call_id": "call_r", "name": "read_file", "arguments": `{"path":"a.txt"}`}
	for _, typ := range []string{"computer_call", "mcp_approval_request", "future_tool_call"} {
		t.Run(typ, func(t *testing.T) {
			items := []any{read, map[string]any{"type": typ, "id": "x_1", "call_id": "call_x", "action": map[string]any{"type": "screenshot"}}}
			resp := ts.do(t, http.MethodPost, "/v1/sessions/default/messages", items)
			body := decodeBody[api.ErrorResponse](t, resp, http.StatusBadRequest)
			if !strings.Contains(body.Error.Message, typ) || body.Error.Fields["items[1].type"] == "" {
				t.Errorf("error = %+v, want one naming %s at items[1]", body.Error, typ)
			}
		})
	}
	t.Run("server-side and history items", func(t *testing.T) {
		items := []any{
			map[string]any{"type": "web_search_call", "id": "ws_1", "status": "completed", "action": map[string]any{"type": "search", "query": "x"}},
			map[string]any{"type": "tool_search_call", "id": "ts_1", "execution": "server", "arguments": map[string]any{"query": "x"}},
			map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}},
			map[string]any{"type": "shell_call", "id": "sh_h", "call_id": "call_hosted", "status": "completed",
				"environment": map[string]any{"type": "container_reference", "container_id": "cntr_1"}, "action": map[string]any{"commands": []string{"ls"}}},
			read,
			map[string]any{"type": "function_call_output", "call_id": "call_old", "output": []any{map[string]any{"type": "input_text", "text": "old"}}},
		}
		got := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", items), http.StatusOK)
		if len(got.Output) != 1 || got.Output[0].CallID != "call_r" {
			t.Errorf("output = %+v, want the one function call answered", got.Output)
		}
	})
}

// TestLocalShellArgv: a local_shell_call's `sh -c` runs its script in sh
// and a `bash -lc` in bash with the login profile's environment
// (execute_command's shell and login), as the argv says; other argv are
// one bash line of quoted words.
func TestLocalShellArgv(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want map[string]any
	}{
		{[]string{"bash", "-c", "ls"}, map[string]any{"command": "ls"}},
		{[]string{"bash", "-lc", "ls"}, map[string]any{"command": "ls", "login": true}},
		{[]string{"/bin/sh", "-c", "ls"}, map[string]any{"command": "ls", "shell": "sh"}},
		{[]string{"/usr/bin/sh", "-lc", "ls"}, map[string]any{"command": "ls", "shell": "sh", "login": true}},
		{[]string{"ls", "-l", "a b"}, map[string]any{"command": "ls -l 'a b'"}},
	} {
		raw, _ := json.Marshal(map[string]any{"type": "local_shell_call", "call_id": "c", "action": map[string]any{"type": "exec", "command": tc.argv}})
		run, err := localShellRun(0, "c", raw)
		if err != nil {
			t.Fatalf("%q: %v", tc.argv, err)
		}
		var in map[string]any
		if err := json.Unmarshal(run.uses[0].Input, &in); err != nil {
			t.Fatal(err)
		}
		delete(in, "requires_approval")
		if !reflect.DeepEqual(in, tc.want) {
			t.Errorf("%q: execute_command input %v, want %v", tc.argv, in, tc.want)
		}
	}
}
