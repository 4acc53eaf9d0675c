package coordinator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/hooks"
)

// approveAll runs a call, approves every approval it asks for and
// returns the approvals it was asked.
func approveAll(t *testing.T, p *testPolicy, s *Session, u api.ToolUse) (api.ToolResult, api.CallRecord, []*api.Approval) {
	t.Helper()
	ctx, done := context.WithCancel(context.Background())
	var res api.ToolResult
	var rec api.CallRecord
	go func() {
		defer done()
		res, rec = p.c.Execute(context.Background(), s, "", u)
	}()
	var asked []*api.Approval
	var after int64
	for {
		ev, err := s.Events.WaitFor(ctx, after, func(ev api.Event) bool {
			return ev.ToolUseID == u.ID && ev.Type == api.EventToolAwaitingApproval
		})
		if err != nil {
			return res, rec, asked
		}
		after = ev.ID
		asked = append(asked, ev.Approval)
		if _, err := p.c.Decide(s, u.ID, api.DecisionRequest{Decision: api.DecisionApprove}, "token"); err != nil {
			t.Fatalf("approve %s: %v", u.ID, err)
		}
	}
}

// ccPreToolUse is a PreToolUse hook's stdout in Claude Code's shape
// (code.claude.com/docs/en/hooks, "PreToolUse decision control").
func ccPreToolUse(decision, reason, updatedInput string) string {
	out := `{"hookSpecificOutput":{"hookEventName":"PreToolUse"`
	if decision != "" {
		out += `,"permissionDecision":"` + decision + `","permissionDecisionReason":"` + reason + `"`
	}
	if updatedInput != "" {
		out += `,"updatedInput":` + updatedInput
	}
	return "echo '" + out + "}}'"
}

// runHookedWrite runs one write under a PreToolUse hook with the body
// hook, in a session that newSession opens with perms, approving every
// prompt; it fails the test unless the call ends with wantStatus after
// wantAsked prompts.
func runHookedWrite(t *testing.T, scripts, hook string, newSession func(*testPolicy, *testing.T, api.Permissions) *Session,
	perms api.Permissions, u api.ToolUse, wantStatus api.CallStatus, wantAsked int) (*Session, api.ToolResult, []*api.Approval) {
	t.Helper()
	script := writeHook(t, scripts, "hook-"+u.ID, hook)
	cfg := Config{AgentConfig: AgentConfig{Hooks: pre("write_to_file", command(script))}}
	cfg.Sandbox.Writable = []string{scripts} // shows the scripts under the sandbox's private /tmp
	p := newTestPolicy(t, cfg, nil)
	s := newSession(p, t, perms)
	res, rec, asked := approveAll(t, p, s, u)
	if rec.Status != wantStatus {
		t.Fatalf("status = %s (%q), want %s", rec.Status, resultText(res), wantStatus)
	}
	if len(asked) != wantAsked {
		t.Fatalf("asked %d times, want %d", len(asked), wantAsked)
	}
	return s, res, asked
}

// TestPreToolUseBeforeThePrompt: in a claude_code session PreToolUse
// hooks run before the permission prompt, as Claude Code documents (code.claude.com/docs/en/hooks:
// PreToolUse "runs after Claude creates tool parameters and before
// processing the tool call"; permissionDecision "allow" bypasses the
// permission prompt, "deny" prevents the call, "ask" asks the user to
// confirm; the SDK's permission order puts hooks first, then deny rules,
// then ask rules, so a hook's allow does not pass a deny or ask rule).
// In Cline's order (TestClineHooksAfterApproval) a hook's deny comes after
// the user was asked, and its allow skips nothing.
func TestPreToolUseBeforeThePrompt(t *testing.T) {
	scripts := t.TempDir()
	write := map[string]any{"path": "a.txt", "content": "x"}
	cases := []struct {
		name       string
		hook       string
		perms      api.Permissions
		wantStatus api.CallStatus
		wantAsked  int
		wantText   string // in the result
		wantReason string // in the (one) approval's reason
	}{
		{"no decision: the default prompt", ccPreToolUse("", "", ""), api.Permissions{}, api.StatusSucceeded, 1, "ok a.txt", "edits ask"},
		{"allow skips the default prompt", ccPreToolUse("allow", "trusted path", ""), api.Permissions{}, api.StatusSucceeded, 0, "ok a.txt", ""},
		{"allow does not pass an ask rule", ccPreToolUse("allow", "trusted path", ""), api.Permissions{Ask: []string{"write_to_file"}},
			api.StatusSucceeded, 1, "ok a.txt", `ask rule "write_to_file"`},
		{"allow does not pass a deny rule", ccPreToolUse("allow", "trusted path", ""), api.Permissions{Deny: []string{"write_to_file(a.txt)"}},
			api.StatusDenied, 0, "deny rule", ""},
		{"ask forces the prompt over an allow rule", ccPreToolUse("ask", "double-check", ""), api.Permissions{Allow: []string{"write_to_file"}},
			api.StatusSucceeded, 1, "ok a.txt", "double-check"},
		{"ask and the default ask make one prompt", ccPreToolUse("ask", "double-check", ""), api.Permissions{}, api.StatusSucceeded, 1, "ok a.txt", "edits ask"},
		{"deny blocks before any prompt", ccPreToolUse("deny", "frozen", ""), api.Permissions{}, api.StatusDenied, 0, "frozen", ""},
		{"exit 2 blocks with stderr before any prompt", `echo "no writes today" >&2; exit 2`, api.Permissions{}, api.StatusDenied, 0, "no writes today", ""},
		// The user approves the input that will run, once.
		{"updatedInput is asked once", ccPreToolUse("", "", `{"path":"b.txt","content":"y"}`), api.Permissions{}, api.StatusSucceeded, 1, "ok b.txt", "edits ask"},
		{"updatedInput with allow runs without a prompt", ccPreToolUse("allow", "rewritten", `{"path":"b.txt","content":"y"}`), api.Permissions{},
			api.StatusSucceeded, 0, "ok b.txt", ""},
		{"updatedInput meets the rules", ccPreToolUse("allow", "rewritten", `{"path":"locked/b.txt","content":"y"}`), api.Permissions{Deny: []string{"write_to_file(locked/**)"}},
			api.StatusDenied, 0, "locked/**", ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := "k" + string(rune('a'+i))
			s, res, asked := runHookedWrite(t, scripts, tc.hook, (*testPolicy).claudeCodeSession, tc.perms,
				use(id, "Write", write), tc.wantStatus, tc.wantAsked)
			// The audit log and the call's span name who let it run.
			if strings.HasPrefix(tc.name, "allow skips") || strings.HasPrefix(tc.name, "updatedInput with allow") {
				if by := auditDecidedBy(t, s, id); by != decidedByHook {
					t.Errorf("decided_by = %q, want %q", by, decidedByHook)
				}
			}
			if !strings.Contains(resultText(res), tc.wantText) {
				t.Errorf("result = %q, want it to contain %q", resultText(res), tc.wantText)
			}
			if tc.wantAsked == 0 {
				return
			}
			if !strings.Contains(asked[0].Reason, tc.wantReason) {
				t.Errorf("approval reason = %q, want it to contain %q", asked[0].Reason, tc.wantReason)
			}
			// The user is shown the input that runs.
			want := strings.TrimPrefix(tc.wantText, "ok ")
			if pv := asked[0].Preview; !slices.Contains(pv.Paths, want) {
				t.Errorf("approval preview = %+v, want path %s", pv, want)
			}
		})
	}
}

// TestClineHooksAfterApproval: in a Cline session PreToolUse hooks run
// after the user's approval and before the tool runs, as Cline does
// (apps/vscode/src/core/task/ToolExecutor.ts handleCompleteBlock, v4.0.12:
// "PreToolUse hooks are now executed by individual tool handlers after
// approval"; WriteToFileToolHandler.ts: "Run PreToolUse hook after
// approval but before execution"). The user is never asked twice: a
// hook's ask or updatedInput after an approval does not ask again (the
// rules still judge the new input), and a hook's ask on a call the policy
// allowed asks once.
func TestClineHooksAfterApproval(t *testing.T) {
	scripts := t.TempDir()
	write := map[string]any{"path": "a.txt", "content": "x"}
	cases := []struct {
		name       string
		hook       string
		perms      api.Permissions
		wantStatus api.CallStatus
		wantAsked  int
		wantText   string
	}{
		{"the policy asked and the user approved: the hook's ask does not ask again", ccPreToolUse("ask", "double-check", ""), api.Permissions{},
			api.StatusSucceeded, 1, "ok a.txt"},
		{"the policy allowed: the hook's ask asks once", ccPreToolUse("ask", "double-check", ""), api.Permissions{Allow: []string{"write_to_file"}},
			api.StatusSucceeded, 1, "ok a.txt"},
		{"the hook's deny comes after the approval and still blocks", `echo "hook says no" >&2; exit 2`, api.Permissions{},
			api.StatusDenied, 1, "hook says no"},
		{"the hook's allow skips nothing: the approval came first", ccPreToolUse("allow", "fine", ""), api.Permissions{},
			api.StatusSucceeded, 1, "ok a.txt"},
		{"an updatedInput after the approval is not asked again", ccPreToolUse("", "", `{"path":"b.txt","content":"y"}`), api.Permissions{},
			api.StatusSucceeded, 1, "ok b.txt"},
		{"an updatedInput after the approval still meets the deny rules", ccPreToolUse("", "", `{"path":"locked/b.txt","content":"y"}`),
			api.Permissions{Deny: []string{"write_to_file(locked/**)"}}, api.StatusDenied, 1, "locked/**"},
		{"an updatedInput on a call the policy allowed is judged afresh", ccPreToolUse("", "", `{"path":"asked.txt","content":"y"}`),
			api.Permissions{Allow: []string{"write_to_file(a.txt)"}}, api.StatusSucceeded, 1, "ok asked.txt"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := "c" + string(rune('a'+i))
			_, res, _ := runHookedWrite(t, scripts, tc.hook, (*testPolicy).session, tc.perms,
				use(id, "write_to_file", write), tc.wantStatus, tc.wantAsked)
			if !strings.Contains(resultText(res), tc.wantText) {
				t.Errorf("result = %q, want it to contain %q", resultText(res), tc.wantText)
			}
		})
	}
}

// auditDecidedBy is who the audit log says decided a finished call.
func auditDecidedBy(t *testing.T, s *Session, id string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.calls[id]
	if !ok {
		t.Fatalf("no call %s", id)
	}
	return e.audit.decidedBy
}

// TestSpanNamesTheHook: a call a PreToolUse hook's allow let run is
// "allow" by "hook" on its span, not by the policy.
func TestSpanNamesTheHook(t *testing.T) {
	cs := &callState{ran: true, e: &callEntry{}}
	cs.e.audit.decide("allow", decidedByHook)
	if d, by := cs.decision(outcome{status: api.StatusSucceeded}); d != "allow" || by != "hook" {
		t.Errorf("decision = %s by %s, want allow by hook", d, by)
	}
	cs.e.audit.decide("allow", "rule: read_file")
	if d, by := cs.decision(outcome{status: api.StatusSucceeded}); d != "allow" || by != "policy" {
		t.Errorf("decision = %s by %s, want allow by policy", d, by)
	}
}

// TestPostToolUseSeesTheUpdatedInput: after a PreToolUse hook's
// updatedInput, PostToolUse hooks get that input as tool_input: it is
// what ran (Claude Code's PostToolUse input carries the tool_input the
// tool was called with).
func TestPostToolUseSeesTheUpdatedInput(t *testing.T) {
	scripts := t.TempDir()
	seen := filepath.Join(scripts, "post.json")
	preHook := writeHook(t, scripts, "pre", ccPreToolUse("allow", "rewritten", `{"path":"b.txt","content":"y"}`))
	postHook := writeHook(t, scripts, "post", `cat > `+shellQuote(seen))
	hc := pre("write_to_file", command(preHook))
	hc.PostToolUse = []hooks.Matcher{{Matcher: "write_to_file", Hooks: []hooks.Spec{command(postHook)}}}
	p, s := hookCase(t, hc, nil)
	if res, rec := run(t, p, s, use("pu1", "write_to_file", map[string]any{"path": "a.txt", "content": "x"})); rec.Status != api.StatusSucceeded {
		t.Fatalf("status %s (%q)", rec.Status, resultText(res))
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		ToolInput map[string]any `json:"tool_input"`
	}
	if err := json.Unmarshal(b, &in); err != nil || in.ToolInput["path"] != "b.txt" {
		t.Errorf("PostToolUse stdin = %s (%v), want tool_input.path b.txt", b, err)
	}
}
