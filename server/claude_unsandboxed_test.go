package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestClaudeBashLeavesSandboxOnlyWhenApproved: Claude Code's Bash with
// dangerouslyDisableSandbox runs outside the sandbox only with the
// user's approval, asked every time whatever the allow rules and the
// mode (allow_all, bypassPermissions) allow; the approval says it leaves
// the sandbox. Plan mode and a managed policy without
// allow_unsandboxed_commands refuse it.
func TestClaudeBashLeavesSandboxOnlyWhenApproved(t *testing.T) {
	outside := t.TempDir()
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true, AllowBypassPermissions: true, AllowUnsandboxedCommands: true}}
	ts, _ := newDialectServer(t, cfg, nil)
	if m := ts.coord.SandboxInfo().Mode; m != sandbox.InForceBwrap && m != sandbox.InForceLandlock {
		t.Skipf("no sandbox confines commands here (%s)", m)
	}
	s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "bypassPermissions", "permissions": map[string]any{"allow": []string{"Bash"}}})
	sess, err := ts.coord.Sessions().Get(s.ID)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("asked every time, approved it runs unconfined", func(t *testing.T) {
		// The first command nothing would ask about (allow_all, an allow
		// rule, bypassPermissions); the second names a path outside the
		// workspace, which the sandbox would keep it from writing.
		made := filepath.Join(outside, "made")
		for i, command := range []string{"echo hi", "touch " + made} {
			ev, res := approveBash(t, ts, sess, fmt.Sprintf("toolu_out%d", i), map[string]any{"command": command, "dangerouslyDisableSandbox": true})
			if ev.Approval == nil || ev.Approval.Preview.Sandbox == nil || !strings.Contains(ev.Approval.Preview.Sandbox.Summary, "OUTSIDE the sandbox") ||
				!strings.Contains(ev.Approval.Reason, "outside the sandbox") {
				t.Fatalf("call %d: the approval does not say the command leaves the sandbox: %+v", i, ev.Approval)
			}
			if res.Calls[0].Status != api.StatusSucceeded {
				t.Fatalf("call %d: approved, it ended %s: %+v", i, res.Calls[0].Status, res.Message)
			}
		}
		if _, err := os.Stat(made); err != nil {
			t.Errorf("the approved unsandboxed command did not write outside the workspace: %v", err)
		}
	})
	t.Run("without the flag the same approved command stays confined", func(t *testing.T) {
		made := filepath.Join(outside, "confined")
		_, res := approveBash(t, ts, sess, "toolu_in1", map[string]any{"command": "touch " + made})
		if _, err := os.Stat(made); err == nil {
			t.Errorf("a sandboxed command wrote outside the workspace (%s)", res.Calls[0].Status)
		}
	})
	t.Run("plan mode refuses it", func(t *testing.T) {
		p := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "plan"})
		out, st, code := callInCode(t, ts, p.ID, "toolu_plan", "Bash", map[string]any{"command": "ls", "dangerouslyDisableSandbox": true})
		if st != api.StatusDenied || code != api.ToolCodePlanMode {
			t.Errorf("in plan mode: %s %s %q, want denied", st, code, out)
		}
	})
	t.Run("the managed policy refuses it unless it allows unsandboxed commands", func(t *testing.T) {
		strict, _ := newDialectServer(t, coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}, nil)
		p := newSessionOf(t, strict, map[string]any{"dialect": "claude_code"})
		made := filepath.Join(outside, "refused")
		out, st, _ := callInCode(t, strict, p.ID, "toolu_pol", "Bash", map[string]any{"command": "touch " + made, "dangerouslyDisableSandbox": true})
		if st != api.StatusDenied || !strings.Contains(out, "allow_unsandboxed_commands") {
			t.Errorf("without allow_unsandboxed_commands: %s %q, want denied", st, out)
		}
		if _, err := os.Stat(made); err == nil {
			t.Error("the refused command ran")
		}
	})
}

// approveBash posts one Bash call, waits for it to ask, approves it and
// returns the approval event and the answer.
func approveBash(t *testing.T, ts *testServer, sess *coordinator.Session, id string, input map[string]any) (api.Event, api.MessageResponse) {
	t.Helper()
	done := make(chan api.MessageResponse, 1)
	go func() {
		var m api.MessageResponse
		defer func() { done <- m }()
		resp, err := ts.Client().Do(ts.request(t, http.MethodPost, "/v1/sessions/"+sess.ID+"/messages", assistant(toolUse(id, "Bash", input))))
		if err != nil {
			return
		}
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(&m)
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ev, err := sess.Events.WaitFor(ctx, 0, func(ev api.Event) bool {
		return ev.Type == api.EventToolAwaitingApproval && ev.ToolUseID == id
	})
	if err != nil {
		t.Fatalf("%v did not ask for approval: %v", input, err)
	}
	if _, err := ts.coord.Decide(sess, id, api.DecisionRequest{Decision: api.DecisionApprove}, "token"); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-done:
		if len(m.Calls) != 1 {
			t.Fatalf("approved %v: %+v", input, m)
		}
		return ev, m
	case <-ctx.Done():
		t.Fatalf("approved %v did not finish", input)
	}
	return ev, api.MessageResponse{}
}
