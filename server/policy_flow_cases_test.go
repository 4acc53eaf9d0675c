package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestApprovalFlow drives approvals end to end: a client reads the
// message's event stream, sees tool.awaiting_approval with its preview and
// posts its decision.
func TestApprovalFlow(t *testing.T) {
	f := newFlowServer(t, coordinator.Config{Permissions: api.Permissions{Deny: []string{"read_file(secret.txt)"}}})

	t.Run("approve with feedback", func(t *testing.T) {
		sid := f.session(t, api.Permissions{})
		ch := f.sseMessage(t, sid, writeUse("w1", "a.txt", "new\n"))
		ev := next(t, ch, api.EventToolAwaitingApproval)
		if ev.Approval == nil || !strings.Contains(ev.Approval.Preview.Diff, "-old") || !strings.Contains(ev.Approval.Preview.Diff, "+new") {
			t.Fatalf("preview: got %+v, want a diff from old to new", ev.Approval)
		}
		if ev.Call == nil || ev.Call.State != api.StateAwaitingApproval {
			t.Errorf("event call: got %+v, want state awaiting_approval", ev.Call)
		}
		var calls api.CallsResponse
		f.call(t, http.MethodGet, "/v1/sessions/"+sid+"/calls?state=awaiting_approval", nil, &calls)
		if len(calls.Calls) != 1 {
			t.Errorf("calls awaiting approval: got %d, want 1", len(calls.Calls))
		}
		f.decide(t, sid, "w1", api.DecisionRequest{Decision: api.DecisionApprove, Feedback: "keep it short"})
		resp := next(t, ch, api.EventMessageFinished).Response
		if resp.Calls[0].Status != api.StatusSucceeded || !strings.Contains(texts(resp.Message.Content[0]), "keep it short") {
			t.Errorf("got %s %q, want succeeded with the feedback", resp.Calls[0].Status, texts(resp.Message.Content[0]))
		}
		if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "new\n" {
			t.Errorf("file: got %q, want %q", b, "new\n")
		}
		if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/w1/decision", api.DecisionRequest{Decision: api.DecisionApprove}, nil); code != http.StatusConflict {
			t.Errorf("second decision: got %d, want 409", code)
		}
	})

	t.Run("reject with feedback cascades", func(t *testing.T) {
		sid := f.session(t, api.Permissions{})
		ch := f.sseMessage(t, sid, cmdUse("c1", "touch x"), readUse("c2", "a.txt"), cmdUse("c3", "ls"))
		ev := next(t, ch, api.EventToolAwaitingApproval)
		if p := ev.Approval.Preview; p.Command != "touch x" || len(p.Parts) != 1 || p.Parts[0].Args[0] != "touch" {
			t.Errorf("preview: got %+v, want the command and its parts", p)
		}
		f.decide(t, sid, "c1", api.DecisionRequest{Decision: api.DecisionReject, Feedback: "use the Makefile"})
		resp := next(t, ch, api.EventMessageFinished).Response
		if got := resp.Calls[0]; got.Status != api.StatusDenied || got.Error.Code != api.ToolCodeRejected || !strings.Contains(texts(resp.Message.Content[0]), "use the Makefile") {
			t.Errorf("rejected call: got %+v %q, want denied/rejected with the feedback", got, texts(resp.Message.Content[0]))
		}
		for i := 1; i < 3; i++ {
			if got := resp.Calls[i]; got.Status != api.StatusSkipped || !strings.Contains(texts(resp.Message.Content[i]), "Skipping tool due to user rejecting a previous tool.") {
				t.Errorf("call %d: got %s %q, want skipped", i, got.Status, texts(resp.Message.Content[i]))
			}
		}
	})

	t.Run("denial by rule does not cascade", func(t *testing.T) {
		sid := f.session(t, api.Permissions{})
		ch := f.sseMessage(t, sid, readUse("d1", "secret.txt"), readUse("d2", "a.txt"))
		resp := next(t, ch, api.EventMessageFinished).Response
		if resp.Calls[0].Status != api.StatusDenied || !strings.Contains(texts(resp.Message.Content[0]), `deny rule "read_file(secret.txt)" (managed policy)`) {
			t.Errorf("call 0: got %s %q, want denied naming the rule", resp.Calls[0].Status, texts(resp.Message.Content[0]))
		}
		if resp.Calls[1].Status != api.StatusSucceeded {
			t.Errorf("call 1: got %s, want succeeded", resp.Calls[1].Status)
		}
	})

	t.Run("remember", func(t *testing.T) {
		sid := f.session(t, api.Permissions{})
		ch := f.sseMessage(t, sid, cmdUse("m1", "make build"))
		next(t, ch, api.EventToolAwaitingApproval)
		got := f.decide(t, sid, "m1", api.DecisionRequest{Decision: api.DecisionApprove, Remember: true})
		if len(got.RememberedRules) != 1 || got.RememberedRules[0] != "execute_command(make build)" {
			t.Errorf("remembered: got %v, want [execute_command(make build)]", got.RememberedRules)
		}
		next(t, ch, api.EventMessageFinished)
		ch = f.sseMessage(t, sid, cmdUse("m2", "make build"), cmdUse("m3", "make build extra"))
		var seen []string
		for ev := range ch {
			if ev.Type == api.EventToolAwaitingApproval {
				seen = append(seen, ev.ToolUseID)
				f.decide(t, sid, ev.ToolUseID, api.DecisionRequest{Decision: api.DecisionApprove})
			}
		}
		if len(seen) != 1 || seen[0] != "m3" {
			t.Errorf("asked for %v, want only m3 (a different shape)", seen)
		}
		var s api.Session
		f.call(t, http.MethodGet, "/v1/sessions/"+sid, nil, &s)
		if len(s.Permissions.Allow) != 1 {
			t.Errorf("session allow rules: got %v, want the remembered rule", s.Permissions.Allow)
		}
	})
}

func TestApprovalTimeout(t *testing.T) {
	f := newFlowServer(t, coordinator.Config{PolicyConfig: coordinator.PolicyConfig{ApprovalTimeout: coordinator.Duration(50 * time.Millisecond)}})
	sid := f.session(t, api.Permissions{})
	ch := f.sseMessage(t, sid, writeUse("t1", "a.txt", "x"))
	next(t, ch, api.EventToolAwaitingApproval)
	resp := next(t, ch, api.EventMessageFinished).Response
	if got := resp.Calls[0]; got.Status != api.StatusDenied || got.Error.Code != api.ToolCodeNoDecision {
		t.Errorf("got %+v, want denied with code approval_timeout", got)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "old\n" {
		t.Errorf("file changed to %q without approval", b)
	}
}

func TestSessionPermissionsValidated(t *testing.T) {
	f := newFlowServer(t, coordinator.Config{PolicyConfig: coordinator.PolicyConfig{ForbidSessionAllow: true}})
	for name, perms := range map[string]api.Permissions{
		"bad syntax":      {Deny: []string{"read_file("}},
		"forbidden allow": {Allow: []string{"execute_command"}},
	} {
		t.Run(name, func(t *testing.T) {
			if code := f.call(t, http.MethodPost, "/v1/sessions", api.CreateSessionRequest{Permissions: &perms}, nil); code != http.StatusBadRequest {
				t.Errorf("got %d, want 400", code)
			}
		})
	}
}
