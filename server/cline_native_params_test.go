package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestClineNativeToolCalls posts the calls Cline makes with native tool
// calling, in the parameter names and JSON types of its native tool specs
// for each model family (as cline@2.18.0 offers them in the request's
// tools): the native-next-gen variant's write_to_file and
// replace_in_file name the path "absolutePath" (an absolute path), the
// GPT-5 variants edit with apply_patch's "input", and every variant sends
// integers and booleans typed. Each must run as the XML form does.
func TestClineNativeToolCalls(t *testing.T) {
	fx := newFixture(t, fixtureOptions{
		files: map[string]string{"app.py": "x = 1\n", "both.txt": "old\n", "lines.txt": "a\nb\nc\n", "dir/f.txt": "f\n",
			".clineignore": "secret.txt\n", "secret.txt": "s\n"},
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}},
		server: Config{Token: testToken},
	})
	ts := &testServer{Server: fx.ts, coord: fx.coord, reg: fx.reg}
	abs := func(p string) string { return filepath.Join(fx.dir, p) }
	use := func(id, name string, in map[string]any) map[string]any {
		in["task_progress"] = "- [ ] native"
		return map[string]any{"type": "tool_use", "id": id, "name": name, "input": in}
	}
	patch := "*** Begin Patch\n*** Add File: patched.txt\n+patched\n*** End Patch"
	msg := map[string]any{"role": "assistant", "content": []any{
		use("w1", "write_to_file", map[string]any{"absolutePath": abs("new/created.txt"), "content": "made\n"}),
		use("e1", "replace_in_file", map[string]any{"absolutePath": abs("app.py"), "diff": "------- SEARCH\nx = 1\n=======\nx = 2\n+++++++ REPLACE"}),
		use("w2", "write_to_file", map[string]any{"path": "both.txt", "absolutePath": abs("elsewhere.txt"), "content": "new\n"}),
		use("w3", "write_to_file", map[string]any{"path": "", "absolutePath": abs("empty-path.txt"), "content": "e\n"}),
		use("w4", "write_to_file", map[string]any{"absolutePath": "/etc/toolgate-outside.txt", "content": "no\n"}),
		use("w5", "write_to_file", map[string]any{"absolutePath": abs("secret.txt"), "content": "no\n"}),
		use("p1", "apply_patch", map[string]any{"input": patch}),
		use("r1", "read_file", map[string]any{"path": "lines.txt", "start_line": 2, "end_line": 2}),
		use("l1", "list_files", map[string]any{"path": ".", "recursive": true}),
		use("x1", "execute_command", map[string]any{"command": "echo hi", "requires_approval": false, "timeout": 10}),
	}}
	sess := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", map[string]any{}), http.StatusCreated)
	resp := decodeBody[api.MessageResponse](t, ts.do(t, "POST", "/v1/sessions/"+sess.ID+"/messages", msg), http.StatusOK)
	status := map[string]api.CallStatus{}
	text := map[string]string{}
	for i, r := range resp.Message.Content {
		status[r.ToolUseID] = resp.Calls[i].Status
		if len(r.Content) > 0 {
			text[r.ToolUseID] = r.Content[0].Text
		}
	}
	for _, id := range []string{"w1", "e1", "w2", "w3", "p1", "r1", "l1", "x1"} {
		if status[id] != api.StatusSucceeded {
			t.Errorf("%s: status %s, want succeeded: %s", id, status[id], text[id])
		}
	}
	if status["w4"] != api.StatusFailed || !strings.Contains(text["w4"], "outside the workspace") {
		t.Errorf("w4 (absolutePath outside the workspace): %s %q, want failed, outside the workspace", status["w4"], text["w4"])
	}
	// Cline names a path .clineignore blocks as the model gave it.
	if want := "Access to " + abs("secret.txt") + " is blocked by the .clineignore file settings."; status["w5"] != api.StatusDenied || !strings.Contains(text["w5"], want) {
		t.Errorf("w5 (absolutePath .clineignore blocks): %s %q, want denied with %q", status["w5"], text["w5"], want)
	}
	for path, want := range map[string]string{"new/created.txt": "made\n", "app.py": "x = 2\n", "both.txt": "new\n",
		"empty-path.txt": "e\n", "patched.txt": "patched\n"} {
		if got, err := os.ReadFile(abs(path)); err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", path, got, err, want)
		}
	}
	if _, err := os.Stat(abs("elsewhere.txt")); err == nil {
		t.Error("w2 wrote absolutePath although path was given; Cline's handler takes path first")
	}
	if !strings.Contains(text["r1"], "b") || strings.Contains(text["r1"], "a\n") {
		t.Errorf("r1 (start_line 2, end_line 2 as integers) = %q, want line 2 only", text["r1"])
	}
	if b, _ := json.Marshal(resp.Calls); t.Failed() {
		t.Logf("calls: %s", b)
	}
}

// TestClineEmptyRequiredIsMissing: an empty required string parameter is
// a missing one, as Cline's handlers test them (`!content`): an empty
// write_to_file content is refused with Cline's missing-content text, as
// cline@2.18.0 refuses it, and writes nothing.
func TestClineEmptyRequiredIsMissing(t *testing.T) {
	fx := newFixture(t, fixtureOptions{
		config: coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}},
		server: Config{Token: testToken},
	})
	ts := &testServer{Server: fx.ts, coord: fx.coord, reg: fx.reg}
	msg := map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "tool_use", "id": "w1", "name": "write_to_file", "input": map[string]any{"path": "empty.txt", "content": ""}},
		map[string]any{"type": "tool_use", "id": "x1", "name": "execute_command", "input": map[string]any{"command": "", "requires_approval": "false"}},
	}}
	sess := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", map[string]any{}), http.StatusCreated)
	resp := decodeBody[api.MessageResponse](t, ts.do(t, "POST", "/v1/sessions/"+sess.ID+"/messages", msg), http.StatusOK)
	for i, want := range []string{"Failed to write to 'empty.txt': The 'content' parameter was empty.", "The 'command' parameter was empty."} {
		r := resp.Message.Content[i]
		if resp.Calls[i].Status != api.StatusInvalid || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, want) {
			t.Errorf("%s: %s %+v, want invalid with %q", r.ToolUseID, resp.Calls[i].Status, r.Content, want)
		}
	}
	if _, err := os.Stat(filepath.Join(fx.dir, "empty.txt")); err == nil {
		t.Error("empty.txt was written")
	}
}
