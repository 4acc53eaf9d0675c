package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/hooks"
)

// ccHook writes a hook script; Claude Code's hooks read the call as JSON on
// stdin and answer by exit code or JSON on stdout.
func ccHook(t *testing.T, dir, name, body string) hooks.Spec {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return hooks.Spec{Type: "command", Command: p}
}

// runApproving posts one tool_use to a session, approves each prompt it
// raises, and returns the tool_result text, the call's status and the
// approval reasons it was asked.
func runApproving(t *testing.T, ts *testServer, sid, id, name string, input any) (string, api.CallStatus, []string) {
	t.Helper()
	return runDeciding(t, ts, sid, id, name, input, api.DecisionApprove)
}

// runDeciding is runApproving with the given decision on each prompt.
func runDeciding(t *testing.T, ts *testServer, sid, id, name string, input any, decision string) (string, api.CallStatus, []string) {
	t.Helper()
	sess, err := ts.coord.Sessions().Get(sid)
	if err != nil {
		t.Fatal(err)
	}
	req := ts.request(t, http.MethodPost, "/v1/sessions/"+sid+"/messages", assistant(toolUse(id, name, input)))
	type answer struct {
		resp *http.Response
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := ts.Client().Do(req)
		done <- answer{resp, err}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var reasons []string
	var after int64
	for {
		waitCtx, stop := context.WithCancel(ctx)
		evc := make(chan api.Event, 1)
		go func() {
			ev, err := sess.Events.WaitFor(waitCtx, after, func(ev api.Event) bool {
				return ev.ToolUseID == id && ev.Type == api.EventToolAwaitingApproval
			})
			if err == nil {
				evc <- ev
			}
		}()
		select {
		case a := <-done:
			stop()
			if a.err != nil {
				t.Fatal(a.err)
			}
			got := decodeBody[api.MessageResponse](t, a.resp, http.StatusOK)
			text := ""
			for _, c := range got.Message.Content[0].Content {
				text += c.Text
			}
			return text, got.Calls[0].Status, reasons
		case ev := <-evc:
			stop()
			after = ev.ID
			reasons = append(reasons, ev.Approval.Reason)
			decodeBody[api.DecisionResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/"+id+"/decision",
				api.DecisionRequest{Decision: decision}), http.StatusOK)
		case <-ctx.Done():
			stop()
			t.Fatalf("%s did not end within a minute", id)
		}
	}
}

// TestClaudeCodeHooks runs hooks written for Claude Code against a
// claude_code session, in the shapes code.claude.com/docs/en/hooks
// documents: stdin carries session_id, hook_event_name, tool_name,
// tool_input (Write with an absolute file_path), tool_use_id, cwd and
// permission_mode; stdout's hookSpecificOutput carries permissionDecision,
// permissionDecisionReason and updatedInput; exit code 2 blocks with
// stderr as the reason. PreToolUse runs before the permission prompt.
func TestClaudeCodeHooks(t *testing.T) {
	scripts := t.TempDir()
	seen := filepath.Join(scripts, "seen.json")
	cfg := coordinator.Config{}
	cfg.Sandbox.Writable = []string{scripts} // the sandbox shows hooks their own directory
	cfg.Hooks.PreToolUse = []hooks.Matcher{
		// Rewrites what Write writes and lets it run without a prompt.
		{Matcher: "Write", Hooks: []hooks.Spec{ccHook(t, scripts, "write.sh", `cat > '`+seen+`'
path=$(sed -n 's/.*"file_path":"\([^"]*\)".*/\1/p' '`+seen+`')
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"house style","updatedInput":{"file_path":"%s","content":"written by the hook\\n"}}}' "$path"`)}},
		{Matcher: "Bash", Hooks: []hooks.Spec{ccHook(t, scripts, "bash.sh", `echo "no shell in this repo" >&2; exit 2`)}},
		{Matcher: "^Edit$", Hooks: []hooks.Spec{ccHook(t, scripts, "edit.sh",
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"edits to docs need a look"}}'`)}},
	}
	cfg.Permissions.Allow = []string{"Edit(docs/**)"}
	ts, dir := newDialectServer(t, cfg, map[string]string{"docs/a.md": "old text\n"})
	s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"})

	t.Run("Write: the hook sees Claude Code's input, its allow skips the prompt, its updatedInput runs", func(t *testing.T) {
		target := filepath.Join(dir, "notes.txt")
		text, st, asked := runApproving(t, ts, s.ID, "toolu_w1", "Write", map[string]any{"file_path": target, "content": "from the model\n"})
		if st != api.StatusSucceeded || len(asked) != 0 {
			t.Fatalf("status %s, asked %q (%s); want succeeded without a prompt", st, asked, text)
		}
		if b, _ := os.ReadFile(target); string(b) != "written by the hook\n" {
			t.Errorf("notes.txt = %q, want the hook's content", b)
		}
		b, err := os.ReadFile(seen)
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			SessionID      string         `json:"session_id"`
			HookEventName  string         `json:"hook_event_name"`
			ToolName       string         `json:"tool_name"`
			ToolInput      map[string]any `json:"tool_input"`
			ToolUseID      string         `json:"tool_use_id"`
			Cwd            string         `json:"cwd"`
			PermissionMode string         `json:"permission_mode"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("hook stdin %q: %v", b, err)
		}
		if in.SessionID != s.ID || in.HookEventName != "PreToolUse" || in.ToolName != "Write" || in.ToolUseID != "toolu_w1" ||
			in.Cwd != dir || in.PermissionMode != "default" || in.ToolInput["file_path"] != target || in.ToolInput["content"] != "from the model\n" {
			t.Errorf("hook stdin = %+v", in)
		}
	})
	t.Run("Bash: exit 2 blocks with stderr, before any prompt", func(t *testing.T) {
		text, st, asked := runApproving(t, ts, s.ID, "toolu_b1", "Bash", map[string]any{"command": "touch x"})
		if st != api.StatusDenied || len(asked) != 0 || !strings.Contains(text, "no shell in this repo") {
			t.Errorf("status %s, asked %q, result %q; want denied with the hook's stderr, unasked", st, asked, text)
		}
		if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
			t.Errorf("the blocked command ran")
		}
	})
	t.Run("Edit: ask forces the prompt over an allow rule", func(t *testing.T) {
		runApproving(t, ts, s.ID, "toolu_r1", "Read", map[string]any{"file_path": filepath.Join(dir, "docs/a.md")})
		text, st, asked := runApproving(t, ts, s.ID, "toolu_e1", "Edit",
			map[string]any{"file_path": filepath.Join(dir, "docs/a.md"), "old_string": "old", "new_string": "new"})
		if st != api.StatusSucceeded || len(asked) != 1 || !strings.Contains(asked[0], "edits to docs need a look") {
			t.Fatalf("status %s, asked %q (%s); want one prompt with the hook's reason", st, asked, text)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "docs/a.md")); string(b) != "new text\n" {
			t.Errorf("docs/a.md = %q", b)
		}
	})
	t.Run("permission_mode follows the session", func(t *testing.T) {
		decodeBody[api.Session](t, ts.do(t, http.MethodPatch, "/v1/sessions/"+s.ID, map[string]any{"mode": "acceptEdits"}), http.StatusOK)
		runApproving(t, ts, s.ID, "toolu_w2", "Write", map[string]any{"file_path": filepath.Join(dir, "more.txt"), "content": "x"})
		b, _ := os.ReadFile(seen)
		if !strings.Contains(string(b), `"permission_mode":"acceptEdits"`) {
			t.Errorf("hook stdin = %s, want permission_mode acceptEdits", b)
		}
	})
}
