package server

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// These are the routes the console's session list, approvals inbox,
// charts and audit export read, over HTTP against a real coordinator with
// the default tools and policy (writes ask).

// consolePost posts one assistant message; with async it asks for a 202
// as soon as a call waits for a decision, so a write does not block.
func consolePost(t *testing.T, env *webEnv, sid string, async bool, uses ...api.ToolUse) *http.Response {
	t.Helper()
	blocks := make([]any, len(uses))
	for i, u := range uses {
		blocks[i] = u
	}
	body, _ := json.Marshal(assistant(blocks...))
	h := auth(map[string]string{"Content-Type": "application/json"})
	if async {
		h["Prefer"] = "respond-async"
	}
	return env.do(t, http.MethodPost, "/v1/sessions/"+sid+"/messages", string(body), h)
}

func consoleGet[T any](t *testing.T, env *webEnv, path string) T {
	t.Helper()
	return decodeBody[T](t, env.do(t, http.MethodGet, path, "", auth(nil)), http.StatusOK)
}

func createWebSession(t *testing.T, env *webEnv, body string) string {
	t.Helper()
	s := decodeBody[api.Session](t, env.do(t, http.MethodPost, "/v1/sessions", body, auth(map[string]string{"Content-Type": "application/json"})), http.StatusCreated)
	return s.ID
}

func TestListSessions(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	a := createWebSession(t, env, `{"mode":"act"}`)
	b := createWebSession(t, env, `{"dialect":"claude_code"}`)
	if resp := consolePost(t, env, a, true, toolUse("toolu_w1", "write_to_file", map[string]any{"path": "a.txt", "content": "b\n"})); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the write: status %d, want 202 (waiting)", resp.StatusCode)
	}
	got := consoleGet[api.SessionsResponse](t, env, "/v1/sessions")
	var ids []string
	for _, s := range got.Sessions {
		ids = append(ids, s.ID)
	}
	if want := []string{"default", a, b}; !slices.Equal(ids, want) {
		t.Fatalf("sessions = %v, want %v (oldest first)", ids, want)
	}
	if s := got.Sessions[1]; s.AwaitingApproval != 1 || s.Calls != 1 || s.Mode != api.ModeAct {
		t.Errorf("session with the pending write = %+v, want 1 call awaiting approval", s)
	}
	if s := got.Sessions[2]; s.Dialect != api.DialectClaudeCode || s.AwaitingApproval != 0 || s.LastUsedAt.Before(s.CreatedAt) {
		t.Errorf("claude_code session = %+v", s)
	}
}

func TestApprovalsInbox(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "old\n"})
	other := createWebSession(t, env, `{}`)
	consolePost(t, env, "default", true, toolUse("toolu_in1", "write_to_file", map[string]any{"path": "a.txt", "content": "new\n"}))
	consolePost(t, env, other, true, toolUse("toolu_in2", "write_to_file", map[string]any{"path": "b.txt", "content": "b\n"}))

	inbox := consoleGet[api.ApprovalsResponse](t, env, "/v1/approvals").Approvals
	if len(inbox) != 2 {
		t.Fatalf("inbox = %+v, want the two waiting writes", inbox)
	}
	bySession := map[string]api.PendingApproval{}
	for _, p := range inbox {
		bySession[p.SessionID] = p
	}
	if p := bySession["default"]; p.Call.ToolUseID != "toolu_in1" || p.Call.State != api.StateAwaitingApproval ||
		!strings.Contains(p.Approval.Preview.Diff, "+new") || p.Approval.Reason == "" {
		t.Errorf("default's entry = %+v, want toolu_in1 with its diff and reason", p)
	}
	if p := bySession[other]; p.Call.ToolUseID != "toolu_in2" {
		t.Errorf("%s's entry = %+v, want toolu_in2", other, p)
	}

	resp := env.do(t, http.MethodPost, "/v1/sessions/"+other+"/calls/toolu_in2/decision", `{"decision":"approve"}`,
		auth(map[string]string{"Content-Type": "application/json"}))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("decision: %d", resp.StatusCode)
	}
	inbox = consoleGet[api.ApprovalsResponse](t, env, "/v1/approvals").Approvals
	if len(inbox) != 1 || inbox[0].Call.ToolUseID != "toolu_in1" {
		t.Errorf("inbox after approving toolu_in2 = %+v, want only toolu_in1", inbox)
	}
}

func TestToolStats(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	consolePost(t, env, "default", false,
		toolUse("toolu_s1", "read_file", map[string]any{"path": "a.txt"}),
		toolUse("toolu_s2", "read_file", map[string]any{"path": "missing.txt"}),
		toolUse("toolu_s3", "list_files", map[string]any{"path": "."}))
	got := consoleGet[api.ToolStatsResponse](t, env, "/v1/tool-stats")
	if got.StepSeconds != 60 || len(got.Minutes) == 0 {
		t.Fatalf("tool stats = %+v, want a minute of figures", got)
	}
	figures := map[string]api.ToolMinute{}
	for _, m := range got.Minutes {
		if time.Since(m.Start) > 2*time.Minute {
			t.Errorf("minute %s is not recent", m.Start)
		}
		for _, tm := range m.Tools {
			f := figures[tm.Tool]
			f.Calls += tm.Calls
			f.Errors += tm.Errors
			figures[tm.Tool] = f
		}
	}
	if f := figures["read_file"]; f.Calls != 2 || f.Errors != 1 {
		t.Errorf("read_file = %+v, want 2 calls, 1 error", f)
	}
	if f := figures["list_files"]; f.Calls != 1 || f.Errors != 0 {
		t.Errorf("list_files = %+v, want 1 call", f)
	}
}

func TestAuditExport(t *testing.T) {
	env := newWebEnv(t, nil, map[string]string{"a.txt": "a\n"})
	other := createWebSession(t, env, `{}`)
	consolePost(t, env, "default", false, toolUse("toolu_e1", "read_file", map[string]any{"path": "a.txt"}),
		toolUse("toolu_e2", "read_file", map[string]any{"path": "missing.txt"}))
	consolePost(t, env, other, false, toolUse("toolu_e3", "list_files", map[string]any{"path": "."}))

	t.Run("jsonl", func(t *testing.T) {
		resp := env.do(t, http.MethodGet, "/v1/audit/export?session=default", "", auth(nil))
		body := readAll(t, resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-ndjson" ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("export: %d %v", resp.StatusCode, resp.Header)
		}
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
			var r api.AuditRecord
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			ids = append(ids, r.ToolUseID+":"+string(r.Status))
		}
		if want := []string{"toolu_e2:failed", "toolu_e1:succeeded"}; !slices.Equal(ids, want) {
			t.Errorf("exported = %v, want %v (the session's calls, newest first)", ids, want)
		}
	})
	t.Run("csv", func(t *testing.T) {
		resp := env.do(t, http.MethodGet, "/v1/audit/export?format=csv", "", auth(nil))
		rows, err := csv.NewReader(resp.Body).ReadAll()
		if err != nil || len(rows) != 4 {
			t.Fatalf("csv: %v, %d rows, want a header and 3 calls", err, len(rows))
		}
		col := map[string]int{}
		for i, name := range rows[0] {
			col[name] = i
		}
		var ids []string
		for _, r := range rows[1:] {
			ids = append(ids, r[col["tool_use_id"]]+":"+r[col["session_id"]])
		}
		if want := []string{"toolu_e3:" + other, "toolu_e2:default", "toolu_e1:default"}; !slices.Equal(ids, want) {
			t.Errorf("rows = %v, want %v", ids, want)
		}
	})
	t.Run("bad format", func(t *testing.T) {
		e := decodeBody[api.ErrorResponse](t, env.do(t, http.MethodGet, "/v1/audit/export?format=xml", "", auth(nil)), http.StatusBadRequest)
		if e.Error.Fields["format"] == "" {
			t.Errorf("error = %+v, want the format field named", e.Error)
		}
	})
}
