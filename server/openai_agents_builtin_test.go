package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// agentsBuiltinItems are the Agents SDK 0.20's own shell_call and
// apply_patch_call items as a run holds them (interruptions' rawItem),
// captured from @openai/agents against a mock model: callId, camel-case
// action fields, the operation's moveTo, the SDK's providerData.
const agentsBuiltinItems = `[
 {"type":"shell_call","id":"sh_4","callId":"call_sh4","status":"completed",
  "action":{"commands":["cat a.txt","echo done"],"timeoutMs":20000,"maxOutputLength":7},
  "providerData":{"type":"shell_call","id":"sh_4"}},
 {"type":"apply_patch_call","id":"ap_4","callId":"call_ap4","status":"completed",
  "operation":{"type":"update_file","path":"gone.txt","diff":"@@\n-x\n+two\n","moveTo":"moved.txt"},
  "providerData":{"type":"apply_patch_call","id":"ap_4"}}]`

// agentsBuiltinAnswerBody is the answer in the SDK's result item shapes
// (agents-core protocol ShellCallResultItem, ApplyPatchCallResultItem).
type agentsBuiltinAnswerBody struct {
	Output []struct {
		Type            string `json:"type"`
		CallID          string `json:"callId"`
		Status          string `json:"status"`
		MaxOutputLength *int   `json:"maxOutputLength"`
		Output          any    `json:"output"`
	} `json:"output"`
}

// TestAgentsSDKBuiltinCalls: the Agents SDK's shell_call and
// apply_patch_call items are run (before: 400 "calls[0].id is required")
// and answered in the SDK's shapes, the timeout, the output limit and the
// rename honoured.
func TestAgentsSDKBuiltinCalls(t *testing.T) {
	ts, dir := newBuiltinServer(t)
	sess := newSessionOf(t, ts, map[string]any{"permissions": map[string]any{"allow": []string{"execute_command", "apply_patch"}}})
	resp := ts.do(t, http.MethodPost, "/v1/sessions/"+sess.ID+"/messages", json.RawMessage(agentsBuiltinItems))
	got := decodeBody[agentsBuiltinAnswerBody](t, resp, http.StatusOK)
	if len(got.Output) != 2 {
		t.Fatalf("output = %+v", got.Output)
	}
	sh, ap := got.Output[0], got.Output[1]
	if sh.Type != "shell_call_output" || sh.CallID != "call_sh4" || sh.Status != "completed" || sh.MaxOutputLength == nil || *sh.MaxOutputLength != 7 {
		t.Errorf("shell answer %+v", sh)
	}
	entries, _ := sh.Output.([]any)
	want := []string{"alpha\nb", "done"} // cut to 7 characters
	for n, e := range entries {
		m, _ := e.(map[string]any)
		outcome, _ := m["outcome"].(map[string]any)
		if n >= len(want) || m["stdout"] != want[n] || outcome["type"] != "exit" || outcome["exitCode"] != float64(0) {
			t.Errorf("shell entry %d = %v, want stdout %q exit 0", n, e, want[min(n, 1)])
		}
	}
	if len(entries) != 2 {
		t.Errorf("shell entries = %v", sh.Output)
	}
	if ap.Type != "apply_patch_call_output" || ap.CallID != "call_ap4" || ap.Status != "completed" || ap.Output == "" {
		t.Errorf("apply_patch answer %+v", ap)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "moved.txt")); err != nil || string(b) != "two\n" {
		t.Errorf("moved.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !os.IsNotExist(err) {
		t.Errorf("gone.txt is still there: %v", err)
	}
}

// TestOpenAIApplyPatchMoveTo: an API update_file operation's move_to
// renames the file (openai-node ApplyPatchCall operation), as the SDK's
// moveTo does; a move_to outside an update is refused.
func TestOpenAIApplyPatchMoveTo(t *testing.T) {
	ts, dir := newBuiltinServer(t)
	sess := newSessionOf(t, ts, map[string]any{"permissions": map[string]any{"allow": []string{"apply_patch"}}})
	path := "/v1/sessions/" + sess.ID + "/messages"
	item := `[{"type":"apply_patch_call","call_id":"call_mv","status":"completed",
	  "operation":{"type":"update_file","path":"gone.txt","diff":"@@\n-x\n+y\n","move_to":"sub/kept.txt"}}]`
	decodeBody[builtinAnswer](t, ts.do(t, http.MethodPost, path, json.RawMessage(item)), http.StatusOK)
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "kept.txt")); err != nil || string(b) != "y\n" {
		t.Errorf("sub/kept.txt = %q, %v", b, err)
	}
	bad := `[{"type":"apply_patch_call","call_id":"call_bad","status":"completed",
	  "operation":{"type":"create_file","path":"n.txt","diff":"+n\n","move_to":"m.txt"}}]`
	resp := ts.do(t, http.MethodPost, path, json.RawMessage(bad))
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("move_to in a create_file: status %d, want 400", resp.StatusCode)
	}
}
