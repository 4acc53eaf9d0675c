package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// sendPrefer posts body with a Prefer header and returns the response,
// its body read.
func sendPrefer(t *testing.T, f *fixture, path, prefer string, body any) (*http.Response, []byte) {
	t.Helper()
	return sendFull(t, f, flowToken, "POST", path, body, "Prefer", prefer)
}

// TestPreferRespondAsyncAnswersAWaitingCall: a curl user posting a write
// that needs approval with Prefer: respond-async hears at once (202) which
// call waits and where to decide it; the call goes on, and deciding it at
// the given link runs it, its result then at the call's URL. Without the
// header the request would wait for the decision (the client's timeout
// bounds this test).
func TestPreferRespondAsyncAnswersAWaitingCall(t *testing.T) {
	f := scopeServer(t)
	resp, body := sendPrefer(t, f, "/v1/tool_use", "respond-async",
		toolUse("toolu_p1", "write_to_file", map[string]any{"path": "a.txt", "content": "new\n"}))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d, want 202: %s", resp.StatusCode, body)
	}
	var p api.PendingResponse
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	want := "/v1/sessions/default/calls/toolu_p1"
	if p.Waiting.ToolUseID != "toolu_p1" || p.Waiting.State != api.StateAwaitingApproval || p.Waiting.CallURL != want ||
		p.Waiting.DecisionURL != want+"/decision" || p.Waiting.Approval == nil || p.Waiting.Name != "write_to_file" {
		t.Fatalf("pending = %+v", p)
	}
	if resp.Header.Get("Preference-Applied") != "respond-async" || resp.Header.Get("Location") != want {
		t.Errorf("headers: Preference-Applied %q, Location %q", resp.Header.Get("Preference-Applied"), resp.Header.Get("Location"))
	}
	if got := readFile(t, f, "a.txt"); got != "old\n" {
		t.Fatalf("a.txt = %q before the decision", got)
	}
	if status, body := send(t, f, flowToken, "POST", p.Waiting.DecisionURL, map[string]any{"decision": "approve"}); status != http.StatusOK {
		t.Fatalf("decision: %d %s", status, body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, body := send(t, f, flowToken, "GET", p.Waiting.CallURL, nil)
		var c api.CallResponse
		_ = json.Unmarshal(body, &c)
		if status == http.StatusOK && c.Call.State == api.StateDone {
			if c.Call.Status != api.StatusSucceeded || c.Result == nil {
				t.Fatalf("call after approval: %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the approved call did not finish: %d %s", status, body)
		}
		time.Sleep(20 * time.Millisecond) // a poll with a deadline, as a client of call_url would
	}
	if got := readFile(t, f, "a.txt"); got != "new\n" {
		t.Errorf("a.txt = %q after the approval", got)
	}
}

// TestPreferWaitAnswersAMessage: wait=N on a message answers 202 once a
// call has waited N seconds, naming the message's calls; a message whose
// calls need nobody is answered whole (200) whatever the preference.
func TestPreferWaitAnswersAMessage(t *testing.T) {
	f := scopeServer(t)
	resp, body := sendPrefer(t, f, "/v1/sessions/default/messages", "wait=1", assistant(
		toolUse("toolu_r1", "read_file", map[string]any{"path": "a.txt"}),
		toolUse("toolu_w2", "write_to_file", map[string]any{"path": "a.txt", "content": "x\n"})))
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Preference-Applied") != "wait=1" {
		t.Fatalf("status %d, Preference-Applied %q: %s", resp.StatusCode, resp.Header.Get("Preference-Applied"), body)
	}
	var p api.PendingResponse
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Waiting.ToolUseID != "toolu_w2" || len(p.Calls) != 2 || p.Calls[0].ToolUseID != "toolu_r1" || p.MessageID == "" {
		t.Fatalf("pending = %+v", p)
	}

	resp, body = sendPrefer(t, f, "/v1/sessions/default/messages", "respond-async", assistant(
		toolUse("toolu_r2", "read_file", map[string]any{"path": "a.txt"})))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Preference-Applied") != "" {
		t.Fatalf("a message needing nobody: %d %s", resp.StatusCode, body)
	}
	var m api.MessageResponse
	if err := json.Unmarshal(body, &m); err != nil || len(m.Calls) != 1 || m.Calls[0].Status != api.StatusSucceeded {
		t.Fatalf("message = %s (%v)", body, err)
	}
}

func TestPreferenceOf(t *testing.T) {
	for _, c := range []struct {
		header string
		want   preference
		ok     bool
	}{
		{"respond-async", preference{async: true}, true},
		{"respond-async, wait=5", preference{async: true, wait: 5 * time.Second}, true},
		{"wait=10", preference{wait: 10 * time.Second}, true},
		{"wait=-1", preference{}, false},
		{"wait=999999", preference{}, false},
		{"return=minimal", preference{}, false},
		{"", preference{}, false},
	} {
		r, _ := http.NewRequest("POST", "/", nil)
		r.Header.Set("Prefer", c.header)
		got, ok := preferenceOf(r)
		if got != c.want || ok != c.ok {
			t.Errorf("Prefer %q = %+v %v, want %+v %v", c.header, got, ok, c.want, c.ok)
		}
	}
}

// TestPreferOnCompleteAnswersAWaitingBlock: a streamed message whose
// block already waits for a decision when the client completes it is
// answered 202 at once under Prefer: respond-async, naming that call,
// as POST /messages is; without the header complete would wait for the
// decision.
func TestPreferOnCompleteAnswersAWaitingBlock(t *testing.T) {
	f := scopeServer(t)
	if status, body := send(t, f, flowToken, "POST", "/v1/sessions/default/messages/msg_p1/blocks",
		toolUse("toolu_c1", "write_to_file", map[string]any{"path": "a.txt", "content": "new\n"})); status != http.StatusAccepted {
		t.Fatalf("block: %d %s", status, body)
	}
	waitAwaiting(t, f, flowToken, "toolu_c1")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", f.url+"/v1/sessions/default/messages/msg_p1/complete", nil)
	req.Header.Set("Authorization", "Bearer "+flowToken)
	req.Header.Set("Prefer", "respond-async")
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatalf("complete did not answer while the call waits: %v", err)
	}
	defer resp.Body.Close()
	var p api.PendingResponse
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusAccepted || p.MessageID != "msg_p1" || p.Waiting.ToolUseID != "toolu_c1" ||
		p.Waiting.DecisionURL != "/v1/sessions/default/calls/toolu_c1/decision" {
		t.Fatalf("complete: %d %+v", resp.StatusCode, p)
	}
}

// TestDiscardCancelsAWriteAwaitingApproval: discarding a streamed message
// whose write still waits for its approval cancels that write at once (it
// never started, so nothing can be torn); the discard used to wait for
// the approval timeout, ten minutes by default.
func TestDiscardCancelsAWriteAwaitingApproval(t *testing.T) {
	f := scopeServer(t)
	if status, body := send(t, f, flowToken, "POST", "/v1/sessions/default/messages/msg_d1/blocks",
		toolUse("toolu_d1", "write_to_file", map[string]any{"path": "a.txt", "content": "new\n"})); status != http.StatusAccepted {
		t.Fatalf("block: %d %s", status, body)
	}
	waitAwaiting(t, f, flowToken, "toolu_d1")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "DELETE", f.url+"/v1/sessions/default/messages/msg_d1", nil)
	req.Header.Set("Authorization", "Bearer "+flowToken)
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatalf("discard did not answer while the write awaits approval: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("discard: %d", resp.StatusCode)
	}
	if got := readFile(t, f, "a.txt"); got != "old\n" {
		t.Errorf("a.txt = %q after the discard, want it unchanged", got)
	}
}

// preferWithin is sendPrefer bounded by a deadline: a request that holds
// until someone decides fails the test instead of hanging it.
func preferWithin(t *testing.T, f *fixture, path, prefer string, body any) (*http.Response, []byte) {
	t.Helper()
	type answer struct {
		resp *http.Response
		body []byte
	}
	got := make(chan answer, 1)
	go func() {
		resp, b := sendFull(t, f, flowToken, "POST", path, body, "Prefer", prefer)
		got <- answer{resp, b}
	}()
	select {
	case a := <-got:
		return a.resp, a.body
	case <-time.After(20 * time.Second):
		t.Fatalf("%s with Prefer: %s held the request for 20 s while its call waited", path, prefer)
		return nil, nil
	}
}

// TestPreferOnOpenAIShapedMessages: Chat Completions and Responses shaped
// messages honour Prefer as Anthropic-shaped ones do; before, a write in
// them held the request until someone decided.
func TestPreferOnOpenAIShapedMessages(t *testing.T) {
	f := scopeServer(t)
	args := `{"path":"a.txt","content":"x\n"}`
	for name, msg := range map[string]any{
		"chat": map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_chat1", "type": "function",
			"function": map[string]any{"name": "write_to_file", "arguments": args}}}},
		"responses": []any{map[string]any{"type": "function_call", "call_id": "call_resp1", "name": "write_to_file", "arguments": args}},
	} {
		t.Run(name, func(t *testing.T) {
			resp, body := preferWithin(t, f, "/v1/sessions/default/messages", "respond-async", msg)
			if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Preference-Applied") != "respond-async" {
				t.Fatalf("status %d, Preference-Applied %q: %s", resp.StatusCode, resp.Header.Get("Preference-Applied"), body)
			}
			var p api.PendingResponse
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatal(err)
			}
			if p.Waiting.State != api.StateAwaitingApproval || p.Waiting.Name != "write_to_file" || len(p.Calls) != 1 {
				t.Fatalf("pending = %+v", p)
			}
			if status, body := send(t, f, flowToken, "POST", p.Waiting.DecisionURL, map[string]any{"decision": "reject"}); status != http.StatusOK {
				t.Fatalf("decision: %d %s", status, body)
			}
		})
	}
}

// TestPreferOnARepostedWaitingCall: a client that re-posts a call still
// waiting for a person (after its first 202, or after a dropped
// connection) hears 202 again at once; before, the waiting event was
// older than the request and it held until the decision.
func TestPreferOnARepostedWaitingCall(t *testing.T) {
	f := scopeServer(t)
	call := toolUse("toolu_again", "write_to_file", map[string]any{"path": "a.txt", "content": "x\n"})
	resp, body := preferWithin(t, f, "/v1/tool_use", "respond-async", call)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("first post: %d %s", resp.StatusCode, body)
	}
	for _, prefer := range []string{"respond-async", "wait=1"} {
		resp, body = preferWithin(t, f, "/v1/tool_use", prefer, call)
		var p api.PendingResponse
		if resp.StatusCode != http.StatusAccepted || json.Unmarshal(body, &p) != nil || p.Waiting.ToolUseID != "toolu_again" {
			t.Fatalf("re-post with %s: %d %s", prefer, resp.StatusCode, body)
		}
	}
	resp, body = preferWithin(t, f, "/v1/sessions/default/messages", "respond-async", assistant(call))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the call re-posted in a message: %d %s", resp.StatusCode, body)
	}
	if status, body := send(t, f, flowToken, "POST", "/v1/sessions/default/calls/toolu_again/decision", map[string]any{"decision": "reject"}); status != http.StatusOK {
		t.Fatalf("decision: %d %s", status, body)
	}
}
