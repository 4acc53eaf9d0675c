package coordinator

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/hooks"
)

// writeHook writes an executable shell script and returns a command line
// that runs it.
func writeHook(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return shellQuote(p)
}

// hookCase builds a coordinator whose config has the given hooks; the
// hooks' scripts live outside the workspace, in directories the sandbox
// is configured to show them (and let them write, as "record" does).
func hookCase(t *testing.T, hc hooks.Config, files map[string]string) (*testPolicy, *Session) {
	t.Helper()
	cfg := Config{PolicyConfig: PolicyConfig{AllowAll: true}, AgentConfig: AgentConfig{Hooks: hc}}
	for _, ms := range [][]hooks.Matcher{hc.PreToolUse, hc.PostToolUse} {
		for _, m := range ms {
			for _, h := range m.Hooks {
				if p := strings.Trim(h.Command, "'"); filepath.IsAbs(p) {
					cfg.Sandbox.Writable = append(cfg.Sandbox.Writable, filepath.Dir(p))
				}
			}
		}
	}
	p := newTestPolicy(t, cfg, files)
	return p, p.session(t, api.Permissions{})
}

func pre(matcher string, specs ...hooks.Spec) hooks.Config {
	return hooks.Config{PreToolUse: []hooks.Matcher{{Matcher: matcher, Hooks: specs}}}
}

func command(line string) hooks.Spec { return hooks.Spec{Type: "command", Command: line} }

func run(t *testing.T, p *testPolicy, s *Session, u api.ToolUse) (api.ToolResult, api.CallRecord) {
	t.Helper()
	return p.c.Execute(context.Background(), s, "", u)
}

func TestPreToolUseHooks(t *testing.T) {
	scripts := t.TempDir()
	write := func(id, path string) api.ToolUse {
		return use(id, "write_to_file", map[string]any{"path": path, "content": "x"})
	}
	cases := []struct {
		name       string
		body       string
		wantStatus api.CallStatus
		wantCode   string
		wantRan    bool
		wantText   string
	}{
		{"exit 0 allows", `cat >/dev/null; exit 0`, api.StatusSucceeded, "", true, "ok a.txt"},
		{"exit 2 blocks with stderr", `echo "no writes today" >&2; exit 2`, api.StatusDenied, api.ToolCodeHookBlocked, false, "no writes today"},
		{"JSON deny", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"frozen"}}'`,
			api.StatusDenied, api.ToolCodeHookBlocked, false, "frozen"},
		{"Cline cancel", `echo '{"cancel":true,"errorMessage":"cline says no"}'`, api.StatusDenied, api.ToolCodeHookBlocked, false, "cline says no"},
		{"updatedInput runs instead", `echo '{"permissionDecision":"allow","updatedInput":{"path":"b.txt","content":"y"}}'`,
			api.StatusSucceeded, "", true, "ok b.txt"},
		{"invalid updatedInput refused", `echo '{"updatedInput":{"bogus":1}}'`, api.StatusInvalid, api.ToolCodeInvalid, false, "bogus"},
		{"updatedInput goes through the policy again", `echo '{"updatedInput":{"path":"secret.txt","content":"y"}}'`,
			api.StatusDenied, api.ToolCodeIgnored, false, "secret.txt"},
		{"additionalContext reaches the result", `echo '{"additionalContext":"remember the style guide"}'`,
			api.StatusSucceeded, "", true, "remember the style guide"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hook := writeHook(t, scripts, tc.name, tc.body)
			p, s := hookCase(t, pre("write_to_file|replace_in_file", command(hook)), map[string]string{".clineignore": "secret.txt\n"})
			id := "t" + string(rune('a'+i))
			res, rec := run(t, p, s, write(id, "a.txt"))
			if rec.Status != tc.wantStatus {
				t.Fatalf("status = %s, want %s (%s)", rec.Status, tc.wantStatus, resultText(res))
			}
			if rec.Status != api.StatusSucceeded && rec.Error.Code != tc.wantCode {
				t.Errorf("code = %s, want %s", rec.Error.Code, tc.wantCode)
			}
			if got := p.ran.has(id); got != tc.wantRan {
				t.Errorf("ran = %v, want %v", got, tc.wantRan)
			}
			if !strings.Contains(resultText(res), tc.wantText) {
				t.Errorf("result = %q, want it to contain %q", resultText(res), tc.wantText)
			}
		})
	}
}

func TestHookInputAndMatcher(t *testing.T) {
	scripts := t.TempDir()
	seen := filepath.Join(scripts, "seen.json")
	hook := writeHook(t, scripts, "record", `cat > `+shellQuote(seen))
	p, s := hookCase(t, pre("write_to_file", command(hook)), nil)

	t.Run("a tool the matcher does not name runs no hook", func(t *testing.T) {
		run(t, p, s, use("r1", "read_file", map[string]any{"path": "a.txt"}))
		if _, err := os.Stat(seen); !os.IsNotExist(err) {
			t.Fatalf("hook ran for read_file (stat err %v)", err)
		}
	})
	t.Run("the hook gets Claude Code's input on stdin", func(t *testing.T) {
		run(t, p, s, use("w1", "write_to_file", map[string]any{"path": "a.txt", "content": "x"}))
		b, err := os.ReadFile(seen)
		if err != nil {
			t.Fatal(err)
		}
		var in map[string]any
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("hook input %q: %v", b, err)
		}
		want := map[string]any{"session_id": s.ID, "hook_event_name": "PreToolUse", "tool_name": "write_to_file",
			"tool_use_id": "w1", "cwd": p.dir, "permission_mode": "default"}
		for k, v := range want {
			if in[k] != v {
				t.Errorf("%s = %v, want %v", k, in[k], v)
			}
		}
		if ti, _ := in["tool_input"].(map[string]any); ti["path"] != "a.txt" {
			t.Errorf("tool_input = %v, want path a.txt", in["tool_input"])
		}
	})
}

func TestHookFailures(t *testing.T) {
	scripts := t.TempDir()
	crash := writeHook(t, scripts, "crash", `echo boom >&2; exit 1`)
	slow := writeHook(t, scripts, "slow", `sleep 30`)
	badJSON := writeHook(t, scripts, "bad", `echo '{not json'`)
	cases := []struct {
		name       string
		spec       hooks.Spec
		failClosed bool
		wantStatus api.CallStatus
		wantText   string
	}{
		{"crash fails open", command(crash), false, api.StatusSucceeded, "ok a.txt"},
		{"crash fails closed", command(crash), true, api.StatusDenied, "boom"},
		{"timeout fails open", hooks.Spec{Command: slow, Timeout: 1}, false, api.StatusSucceeded, "ok a.txt"},
		{"timeout fails closed", hooks.Spec{Command: slow, Timeout: 1}, true, api.StatusDenied, "timed out"},
		{"invalid JSON fails closed", command(badJSON), true, api.StatusDenied, "invalid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hooks := pre("*", tc.spec)
			hooks.FailClosed = tc.failClosed
			p, s := hookCase(t, hooks, nil)
			res, rec := run(t, p, s, use("f1", "write_to_file", map[string]any{"path": "a.txt"}))
			if rec.Status != tc.wantStatus || !strings.Contains(resultText(res), tc.wantText) {
				t.Fatalf("got %s %q, want %s containing %q", rec.Status, resultText(res), tc.wantStatus, tc.wantText)
			}
		})
	}
}

func TestParallelHooksAnyDenyWins(t *testing.T) {
	scripts := t.TempDir()
	allow := writeHook(t, scripts, "allow", `echo '{"permissionDecision":"allow"}'`)
	deny := writeHook(t, scripts, "deny", `echo 'second opinion: no' >&2; exit 2`)
	p, s := hookCase(t, hooks.Config{PreToolUse: []hooks.Matcher{
		{Matcher: "*", Hooks: []hooks.Spec{command(allow)}},
		{Matcher: "write_.*", Hooks: []hooks.Spec{command(deny), command(allow)}},
	}}, nil)
	res, rec := run(t, p, s, use("p1", "write_to_file", map[string]any{"path": "a.txt"}))
	if rec.Status != api.StatusDenied || !strings.Contains(resultText(res), "second opinion") {
		t.Fatalf("got %s %q, want denied by the second hook", rec.Status, resultText(res))
	}
	if got := hookRuns(t, p.reg, hooks.PreToolUse, "allow"); got != 2 {
		t.Errorf("allow runs = %v, want 2", got)
	}
	if got := hookRuns(t, p.reg, hooks.PreToolUse, "deny"); got != 1 {
		t.Errorf("deny runs = %v, want 1", got)
	}
}

func TestHookAsk(t *testing.T) {
	scripts := t.TempDir()
	ask := writeHook(t, scripts, "ask", `echo '{"permissionDecision":"ask","permissionDecisionReason":"double-check"}'`)
	p, s := hookCase(t, pre("read_file", command(ask)), nil)
	got, rec, _ := p.decideOnly(t, s, use("a1", "read_file", map[string]any{"path": "a.txt"}))
	if got != "ask" {
		t.Fatalf("decision = %s (%s), want ask", got, rec.Status)
	}
}

func TestPostToolUseHooks(t *testing.T) {
	scripts := t.TempDir()
	cases := []struct {
		name       string
		body       string
		wantStatus api.CallStatus
		wantText   string
	}{
		{"context appended", `grep -q '"tool_response"' && echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 0 problems"}}'`,
			api.StatusSucceeded, "lint: 0 problems"},
		{"Cline contextModification", `echo '{"contextModification":"cline context"}'`, api.StatusSucceeded, "cline context"},
		{"decision block marks the result", `echo '{"decision":"block","reason":"tests now fail"}'`, api.StatusFailed, "tests now fail"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hook := writeHook(t, scripts, tc.name, tc.body)
			p, s := hookCase(t, hooks.Config{PostToolUse: []hooks.Matcher{{Matcher: "write_to_file", Hooks: []hooks.Spec{command(hook)}}}}, nil)
			res, rec := run(t, p, s, use("q1", "write_to_file", map[string]any{"path": "a.txt"}))
			if rec.Status != tc.wantStatus || !strings.Contains(resultText(res), tc.wantText) {
				t.Fatalf("got %s %q, want %s containing %q", rec.Status, resultText(res), tc.wantStatus, tc.wantText)
			}
			if !p.ran.has("q1") {
				t.Error("the tool did not run before its PostToolUse hook")
			}
		})
	}
}

func TestWorkspaceHooksNeedTrust(t *testing.T) {
	files := map[string]string{}
	for _, trust := range []bool{false, true} {
		name := map[bool]string{false: "untrusted workspace hooks are ignored", true: "trusted workspace hooks run"}[trust]
		t.Run(name, func(t *testing.T) {
			p, s := hookCase(t, hooks.Config{TrustWorkspace: trust}, files)
			writeHook(t, p.dir, ".clinerules/hooks/PreToolUse", `echo 'repo hook says no' >&2; exit 2`)
			res, rec := run(t, p, s, use("w1", "write_to_file", map[string]any{"path": "a.txt"}))
			blocked := rec.Status == api.StatusDenied && strings.Contains(resultText(res), "repo hook says no")
			if blocked != trust {
				t.Fatalf("blocked = %v (%s %q), want %v", blocked, rec.Status, resultText(res), trust)
			}
		})
	}
}

func TestHTTPHook(t *testing.T) {
	bodies := make(chan map[string]any, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var in map[string]any
		_ = json.Unmarshal(b, &in)
		bodies <- in
		_, _ = io.WriteString(w, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"the IDE says no"}}`)
	}))
	defer srv.Close()
	p, s := hookCase(t, pre("write_to_file", hooks.Spec{Type: "http", URL: srv.URL}), nil)
	res, rec := run(t, p, s, use("h1", "write_to_file", map[string]any{"path": "a.txt"}))
	if rec.Status != api.StatusDenied || !strings.Contains(resultText(res), "the IDE says no") {
		t.Fatalf("got %s %q, want denied by the HTTP hook", rec.Status, resultText(res))
	}
	if in := receive(t, bodies); in["tool_name"] != "write_to_file" || in["hook_event_name"] != "PreToolUse" {
		t.Errorf("hook body = %v, want the PreToolUse input of write_to_file", in)
	}
}

// shellQuote quotes a path for a hook's command line.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// hookRuns is toolgate_hook_runs_total{event, outcome} as reg gathers it.
func hookRuns(t *testing.T, reg *prometheus.Registry, event, outcome string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "toolgate_hook_runs_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["event"] == event && labels["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no toolgate_hook_runs_total{event=%q,outcome=%q}", event, outcome)
	return 0
}
