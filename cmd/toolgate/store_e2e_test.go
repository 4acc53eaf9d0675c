package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// storeConfig writes a config whose store lives in its own directory and
// returns the flags that start toolgate on it.
func sqliteArgs(t *testing.T, extra string) []string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "toolgate.json")
	body := fmt.Sprintf(`{"store": {"path": %q}%s}`, filepath.Join(dir, "state", "state.db"), extra)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--config", cfg, "--store", "sqlite"}
}

func (in *instance) getJSON(t *testing.T, path string, out any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", in.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+in.token)
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	return resp.StatusCode
}

func (in *instance) postJSON(t testing.TB, path string, body, out any) int {
	t.Helper()
	resp := in.post(t, path, body)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && json.Unmarshal(data, out) != nil {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, data)
	}
	return resp.StatusCode
}

func message(uses ...map[string]any) map[string]any {
	content := make([]any, len(uses))
	for i, u := range uses {
		u["type"] = "tool_use"
		content[i] = u
	}
	return map[string]any{"role": "assistant", "content": content}
}

// waitForEvent reads a session's event stream, resuming after lastID,
// until an event of that type for that call arrives.
func (in *instance) waitForEvent(t *testing.T, sid, lastID, typ, toolUseID string) api.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", in.url+"/v1/sessions/"+sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+in.token)
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := testHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev api.Event
		if json.Unmarshal([]byte(data), &ev) == nil && ev.Type == typ && ev.ToolUseID == toolUseID {
			return ev
		}
	}
	t.Fatalf("no %s for %s on the stream of %s (%v)", typ, toolUseID, sid, ctx.Err())
	return api.Event{}
}

// waitForState polls a call until it is in a state.
func (in *instance) waitForState(t *testing.T, sid, toolUseID string, state api.CallState) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var got api.CallResponse
		if in.getJSON(t, "/v1/sessions/"+sid+"/calls/"+toolUseID, &got) == 200 && got.Call.State == state {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("call %s never reached %s", toolUseID, state)
}

// TestRestartKeepsSessionsApprovalsAndEdits stops a toolgate with a
// session, a finished edit and a command awaiting approval, starts it
// again on the same store, and checks that the session and its rules are
// back, the approval is announced again on the session's stream (to a
// client resuming from its last id before the restart), approving it runs
// the command once, a re-posted finished call returns its stored result
// without running, and the edit made before the restart can be reverted.
func TestRestartKeepsSessionsApprovalsAndEdits(t *testing.T) {
	dir := t.TempDir()
	args := sqliteArgs(t, "")
	inst := start(t, dir, args...)

	var sess api.Session
	if code := inst.postJSON(t, "/v1/sessions", map[string]any{"mode": "act", "permissions": map[string]any{"allow": []string{"write_to_file(a.txt)"}}}, &sess); code != 201 {
		t.Fatalf("create session: %d", code)
	}
	base := "/v1/sessions/" + sess.ID
	write := message(map[string]any{"id": "w1", "name": "write_to_file", "input": map[string]any{"path": "a.txt", "content": "one\n"}})
	var first api.MessageResponse
	if code := inst.postJSON(t, base+"/messages", write, &first); code != 200 || first.Calls[0].Status != api.StatusSucceeded {
		t.Fatalf("write: %d %+v", code, first)
	}
	command := message(map[string]any{"id": "c1", "name": "execute_command",
		"input": map[string]any{"command": "echo ran >> ran.log", "requires_approval": false}})
	pending := make(chan struct{})
	go func() {
		defer close(pending)
		resp := inst.post(t, base+"/messages", command)
		resp.Body.Close() // the stop below answers it
	}()
	inst.waitForState(t, sess.ID, "c1", api.StateAwaitingApproval)
	if err := inst.stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-pending:
	case <-time.After(30 * time.Second):
		t.Fatal("the pending request was not answered when the server stopped")
	}

	inst = start(t, dir, args...)
	var back api.Session
	if code := inst.getJSON(t, base, &back); code != 200 || back.Permissions.Allow[0] != "write_to_file(a.txt)" {
		t.Fatalf("session after restart: %d %+v", code, back)
	}
	ev := inst.waitForEvent(t, sess.ID, "100000", api.EventToolAwaitingApproval, "c1")
	if ev.Approval == nil || !strings.Contains(ev.Approval.Reason, "approval") {
		t.Errorf("re-announced approval = %+v", ev.Approval)
	}
	var dec api.DecisionResponse
	if code := inst.postJSON(t, base+"/calls/c1/decision", map[string]any{"decision": "approve"}, &dec); code != 200 {
		t.Fatalf("approve after restart: %d", code)
	}
	for range 2 {
		var again api.MessageResponse
		if code := inst.postJSON(t, base+"/messages", command, &again); code != 200 || again.Calls[0].Status != api.StatusSucceeded {
			t.Fatalf("command after approval: %d %+v", code, again)
		}
	}
	if ran, _ := os.ReadFile(filepath.Join(dir, "ran.log")); string(ran) != "ran\n" {
		t.Errorf("ran.log = %q, want the command run once", ran)
	}
	var log api.AuditResponse
	inst.getJSON(t, "/v1/audit?session="+sess.ID, &log)
	who := map[string]string{}
	for _, c := range log.Calls {
		who[c.ToolUseID] = string(c.Status) + " " + c.Decision + " by " + c.DecidedBy
	}
	if who["c1"] != "succeeded approved by token" || who["w1"] != "succeeded allow by rule: write_to_file(a.txt)" {
		t.Errorf("audit log after the restart: %v", who)
	}

	rewrite := message(map[string]any{"id": "w1", "name": "write_to_file", "input": map[string]any{"path": "a.txt", "content": "two\n"}})
	var repeat api.MessageResponse
	if code := inst.postJSON(t, base+"/messages", rewrite, &repeat); code != 200 {
		t.Fatalf("repeat: %d", code)
	}
	if got, want := repeat.Message.Content[0], first.Message.Content[0]; got.Content[0].Text != want.Content[0].Text || repeat.Calls[0].Status != api.StatusSucceeded {
		t.Errorf("re-posted w1 = %+v, want the stored result %+v", got, want)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "one\n" {
		t.Errorf("a.txt = %q: the re-posted call ran again", data)
	}
	var rev api.RevertResponse
	if code := inst.postJSON(t, base+"/calls/w1/revert", map[string]any{}, &rev); code != 200 || rev.Action != api.RevertDeleted {
		t.Fatalf("revert after restart: %d %+v", code, rev)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt still exists after the revert: %v", err)
	}
}

// TestRestartInterruptsRunningCall stops toolgate while a command runs
// (no grace: the command is cut short) and starts it again: the call is
// recorded interrupted, and re-posting it says so instead of running the
// command a second time.
func TestRestartInterruptsRunningCall(t *testing.T) {
	dir := t.TempDir()
	args := append(sqliteArgs(t, `, "policy": {"allow_all": true}`), "--shutdown-grace", "0s")
	inst := start(t, dir, args...)
	command := message(map[string]any{"id": "long1", "name": "execute_command",
		"input": map[string]any{"command": "echo started >> ran.log; sleep 30", "requires_approval": false}})
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		resp := inst.post(t, "/v1/sessions/default/messages", command)
		resp.Body.Close()
	}()
	inst.waitForState(t, "default", "long1", api.StateRunning)
	for deadline := time.Now().Add(20 * time.Second); ; {
		if ran, _ := os.ReadFile(filepath.Join(dir, "ran.log")); len(ran) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := inst.stop(); err != nil {
		t.Fatal(err)
	}
	receive(t, answered)

	inst = start(t, dir, args...)
	var again api.MessageResponse
	if code := inst.postJSON(t, "/v1/sessions/default/messages", command, &again); code != 200 {
		t.Fatalf("re-post: %d", code)
	}
	if c := again.Calls[0]; c.Status != api.StatusInterrupted || c.Error == nil || c.Error.Code != api.ToolCodeInterrupted ||
		!strings.Contains(again.Message.Content[0].Content[0].Text, "not run again") {
		t.Errorf("re-posted running call = %+v %+v, want interrupted", c, again.Message.Content[0])
	}
	if ran, _ := os.ReadFile(filepath.Join(dir, "ran.log")); string(ran) != "started\n" {
		t.Errorf("ran.log = %q, want the command started once", ran)
	}
}

// TestRestartForgetsDiscardedMessage discards a streaming message after
// its call ran: its id may be used again, after a restart too.
func TestRestartForgetsDiscardedMessage(t *testing.T) {
	dir := t.TempDir()
	args := sqliteArgs(t, `, "policy": {"allow_all": true}`)
	inst := start(t, dir, args...)
	use := map[string]any{"type": "tool_use", "id": "d1", "name": "execute_command",
		"input": map[string]any{"command": "echo d1 >> ran.log", "requires_approval": false}}
	base := "/v1/sessions/default/messages/m1"
	if code := inst.postJSON(t, base+"/blocks", use, nil); code != 202 {
		t.Fatalf("post block: %d", code)
	}
	inst.waitForState(t, "default", "d1", api.StateDone)
	req, _ := http.NewRequest("DELETE", inst.url+base, nil)
	req.Header.Set("Authorization", "Bearer "+inst.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("discard: %v %v", err, resp)
	}
	resp.Body.Close()
	if err := inst.stop(); err != nil {
		t.Fatal(err)
	}

	inst = start(t, dir, args...)
	var again api.MessageResponse
	if code := inst.postJSON(t, "/v1/sessions/default/messages", message(use), &again); code != 200 || again.Calls[0].Status != api.StatusSucceeded {
		t.Fatalf("re-post after discard: %d %+v", code, again)
	}
	if ran, _ := os.ReadFile(filepath.Join(dir, "ran.log")); string(ran) != "d1\nd1\n" {
		t.Errorf("ran.log = %q, want the discarded call run again", ran)
	}
	var log api.AuditResponse
	inst.getJSON(t, "/v1/audit?tool=execute_command", &log)
	if len(log.Calls) != 2 || !log.Calls[1].Discarded || log.Calls[0].Discarded {
		t.Errorf("audit = %+v, want the discarded run kept and marked", log.Calls)
	}
}

// TestRestartListsCallsAndReverts: after a restart a session lists the
// calls it answered before (GET .../calls), and an edit made before it is
// reverted without posting the call again. A call answered just now is in
// the audit log at once, though read records are written in batches.
func TestRestartListsCallsAndReverts(t *testing.T) {
	dir := t.TempDir()
	args := sqliteArgs(t, "")
	inst := start(t, dir, args...)
	var sess api.Session
	if code := inst.postJSON(t, "/v1/sessions", map[string]any{"mode": "act", "permissions": map[string]any{"allow": []string{"write_to_file(a.txt)"}}}, &sess); code != 201 {
		t.Fatalf("create session: %d", code)
	}
	base := "/v1/sessions/" + sess.ID
	var first api.MessageResponse
	if code := inst.postJSON(t, base+"/messages", message(
		map[string]any{"id": "w1", "name": "write_to_file", "input": map[string]any{"path": "a.txt", "content": "one\n"}},
		map[string]any{"id": "r1", "name": "read_file", "input": map[string]any{"path": "a.txt"}}), &first); code != 200 {
		t.Fatalf("message: %d %+v", code, first)
	}
	var log api.AuditResponse
	inst.getJSON(t, "/v1/audit?session="+sess.ID, &log)
	if len(log.Calls) != 2 {
		t.Fatalf("audit right after the answer lists %d calls, want 2: %+v", len(log.Calls), log.Calls)
	}
	if err := inst.stop(); err != nil {
		t.Fatal(err)
	}

	inst = start(t, dir, args...)
	var calls api.CallsResponse
	if code := inst.getJSON(t, base+"/calls", &calls); code != 200 {
		t.Fatalf("calls after restart: %d", code)
	}
	var got []string
	for _, c := range calls.Calls {
		got = append(got, c.ToolUseID+" "+string(c.Status))
	}
	if strings.Join(got, ",") != "w1 succeeded,r1 succeeded" {
		t.Errorf("calls after restart = %v, want w1 and r1 succeeded, in order", got)
	}
	var rev api.RevertResponse
	if code := inst.postJSON(t, base+"/calls/w1/revert", map[string]any{}, &rev); code != 200 || rev.Action != api.RevertDeleted {
		t.Fatalf("revert after restart, not re-posted: %d %+v", code, rev)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt still exists after the revert: %v", err)
	}
}
