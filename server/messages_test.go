package server

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

func TestToolUseOutcomes(t *testing.T) {
	ts := newTestServer(t)
	cases := []struct {
		name    string
		use     api.ToolUse
		status  api.CallStatus
		isError bool
		text    string
	}{
		{"success", toolUse("s1", "echo", map[string]any{"text": "hi"}), api.StatusSucceeded, false, "hi"},
		{"unknown tool", toolUse("s2", "nope", map[string]any{}), api.StatusUnknownTool, true, "No handler registered for tool: nope"},
		{"missing field", toolUse("s3", "echo", map[string]any{}), api.StatusInvalid, true, "Missing value for required parameter 'text'."},
		{"wrong type", toolUse("s4", "echo", map[string]any{"text": 5}), api.StatusInvalid, true, "text: must be a string"},
		{"unknown parameter", toolUse("s5", "echo", map[string]any{"text": "x", "bogus": 1}), api.StatusInvalid, true, "bogus: unknown parameter"},
		{"range", toolUse("s6", "echo", map[string]any{"text": "x", "delay_ms": -1}), api.StatusInvalid, true, "delay_ms: must be at least 0"},
		{"panic", toolUse("s7", "boom", map[string]any{"text": "x"}), api.StatusFailed, true, "failed unexpectedly"},
		{"mcp name without servers", toolUse("s8", "mcp__github__create_issue", map[string]any{}), api.StatusUnknownTool, true, "no MCP servers are configured"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := decodeBody[api.ToolUseResponse](t, ts.do(t, "POST", "/v1/tool_use", c.use), http.StatusOK)
			if got.Call.Status != c.status || got.Result.IsError != c.isError {
				t.Errorf("status %s is_error %v, want %s %v", got.Call.Status, got.Result.IsError, c.status, c.isError)
			}
			if got.Result.ToolUseID != c.use.ID || got.Result.Type != api.TypeToolResult {
				t.Errorf("result = %+v, want a tool_result for %s", got.Result, c.use.ID)
			}
			if text := got.Result.Content[0].Text; !strings.Contains(text, c.text) {
				t.Errorf("text = %q, want it to contain %q", text, c.text)
			}
		})
	}
	t.Run("server lives after a panic", func(t *testing.T) {
		got := decodeBody[api.ToolUseResponse](t, ts.do(t, "POST", "/v1/tool_use", toolUse("s9", "echo", map[string]any{"text": "alive"})), 200)
		if got.Call.Status != api.StatusSucceeded {
			t.Errorf("status = %s", got.Call.Status)
		}
	})
	t.Run("a repeated id is not run again", func(t *testing.T) {
		again := toolUse("s1", "echo", map[string]any{"text": "different"})
		got := decodeBody[api.ToolUseResponse](t, ts.do(t, "POST", "/v1/tool_use", again), 200)
		if got.Result.Content[0].Text != "hi" {
			t.Errorf("text = %q, want the first call's result %q", got.Result.Content[0].Text, "hi")
		}
	})
}

func TestMessageJSON(t *testing.T) {
	ts := newTestServer(t)
	msg := assistant(
		map[string]any{"type": "text", "text": "Let me look."},
		toolUse("m1", "echo", map[string]any{"text": "one"}),
		map[string]any{"type": "thinking", "thinking": "hmm", "signature": "x"},
		toolUse("m2", "nope", nil),
		toolUse("m3", "echo", map[string]any{}),
	)
	got := decodeBody[api.MessageResponse](t, ts.do(t, "POST", "/v1/sessions/default/messages", msg), 200)
	if got.Message.Role != "user" || len(got.Message.Content) != 3 || len(got.Calls) != 3 {
		t.Fatalf("response = %+v, want a user message with 3 results", got)
	}
	wantIDs := []string{"m1", "m2", "m3"}
	wantStatus := []api.CallStatus{api.StatusSucceeded, api.StatusUnknownTool, api.StatusInvalid}
	for i := range wantIDs {
		if got.Message.Content[i].ToolUseID != wantIDs[i] || got.Calls[i].Status != wantStatus[i] {
			t.Errorf("block %d: %s %s, want %s %s", i, got.Message.Content[i].ToolUseID, got.Calls[i].Status, wantIDs[i], wantStatus[i])
		}
	}
}

func TestMessageRejects(t *testing.T) {
	ts := newTestServer(t)
	cases := []struct {
		name string
		body any
		code string
	}{
		{"user role", map[string]any{"role": "user", "content": []any{}}, api.CodeValidation},
		{"duplicate ids", assistant(toolUse("d", "echo", map[string]any{"text": "a"}), toolUse("d", "echo", map[string]any{"text": "b"})), api.CodeValidation},
		{"block without type", assistant(map[string]any{"text": "x"}), api.CodeValidation},
		{"tool_use without id", assistant(map[string]any{"type": "tool_use", "name": "echo"}), api.CodeValidation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := decodeBody[api.ErrorResponse](t, ts.do(t, "POST", "/v1/sessions/default/messages", c.body), 400)
			if got.Error.Code != c.code {
				t.Errorf("code = %s, want %s", got.Error.Code, c.code)
			}
		})
	}
	t.Run("unknown session", func(t *testing.T) {
		got := decodeBody[api.ErrorResponse](t, ts.do(t, "POST", "/v1/sessions/nope/messages", assistant()), 404)
		if got.Error.Code != api.CodeNotFound {
			t.Errorf("code = %s", got.Error.Code)
		}
	})
}

func TestMessageSSE(t *testing.T) {
	ts := newTestServer(t)
	msg := assistant(toolUse("e1", "echo", map[string]any{"text": "one"}), toolUse("e2", "nope", nil))
	resp := ts.do(t, "POST", "/v1/sessions/default/messages", msg, "Accept", "text/event-stream")
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type = %q", ct)
	}
	evs := readEvents(t, resp.Body, 10*time.Second, func(e sseEvent) bool { return e.Name == api.EventMessageFinished })
	var names []string
	for _, e := range evs {
		names = append(names, e.Name+":"+e.Data.ToolUseID)
		if e.ID == "" || e.Data.SessionID != "default" || e.Data.MessageID == "" {
			t.Errorf("event %+v lacks its id, session or message", e)
		}
	}
	want := "tool.queued:e1 tool.queued:e2 tool.started:e1 tool.output:e1 tool.finished:e1 tool.finished:e2 message.finished:"
	if strings.Join(names, " ") != want {
		t.Errorf("events = %s\nwant     %s", strings.Join(names, " "), want)
	}
	last := evs[len(evs)-1].Data.Response
	if last == nil || len(last.Message.Content) != 2 || last.Message.Content[1].ToolUseID != "e2" {
		t.Errorf("message.finished response = %+v", last)
	}
}

func TestSessions(t *testing.T) {
	ts := newTestServer(t)
	created := decodeBody[api.Session](t, ts.do(t, "POST", "/v1/sessions", map[string]any{"mode": "plan"}), http.StatusCreated)
	if created.Mode != api.ModePlan || created.ID == "" {
		t.Fatalf("created = %+v", created)
	}
	path := "/v1/sessions/" + created.ID
	t.Run("plan mode refuses writes", func(t *testing.T) {
		got := decodeBody[api.MessageResponse](t, ts.do(t, "POST", path+"/messages", assistant(toolUse("w1", "write", map[string]any{"text": "x"}))), 200)
		if got.Calls[0].Status != api.StatusDenied || !strings.Contains(got.Message.Content[0].Content[0].Text, "act mode") {
			t.Errorf("got %+v, want denied with a hint to switch to act mode", got)
		}
	})
	t.Run("plan mode hides writing tools", func(t *testing.T) {
		got := decodeBody[api.ToolsResponse](t, ts.do(t, "GET", "/v1/tools?session="+created.ID, nil), 200)
		for _, tool := range got.Tools {
			if tool.Name == "write" {
				t.Errorf("write listed in plan mode")
			}
		}
	})
	t.Run("switch to act", func(t *testing.T) {
		got := decodeBody[api.Session](t, ts.do(t, "PATCH", path, map[string]any{"mode": "act"}), 200)
		if got.Mode != api.ModeAct {
			t.Errorf("mode = %s", got.Mode)
		}
		res := decodeBody[api.MessageResponse](t, ts.do(t, "POST", path+"/messages", assistant(toolUse("w2", "write", map[string]any{"text": "x"}))), 200)
		if res.Calls[0].Status != api.StatusSucceeded {
			t.Errorf("status = %s", res.Calls[0].Status)
		}
	})
	t.Run("bad mode", func(t *testing.T) {
		got := decodeBody[api.ErrorResponse](t, ts.do(t, "POST", "/v1/sessions", map[string]any{"mode": "yolo"}), 400)
		if got.Error.Fields["mode"] == "" {
			t.Errorf("error = %+v, want a mode field", got.Error)
		}
	})
	t.Run("calls listing", func(t *testing.T) {
		got := decodeBody[api.CallsResponse](t, ts.do(t, "GET", path+"/calls?state=done", nil), 200)
		if len(got.Calls) != 2 || got.Calls[0].ToolUseID != "w1" {
			t.Errorf("calls = %+v", got.Calls)
		}
		one := decodeBody[api.CallResponse](t, ts.do(t, "GET", path+"/calls/w2", nil), 200)
		if one.Result == nil || one.Call.Status != api.StatusSucceeded {
			t.Errorf("call = %+v", one)
		}
	})
	t.Run("delete", func(t *testing.T) {
		resp := ts.do(t, "DELETE", path, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("status = %d", resp.StatusCode)
		}
		decodeBody[api.ErrorResponse](t, ts.do(t, "GET", path, nil), 404)
		decodeBody[api.ErrorResponse](t, ts.do(t, "DELETE", "/v1/sessions/default", nil), 409)
	})
}

// TestMessageKeysAreNotOpenAIKeys holds what handlePostMessage relies on
// to decode an Anthropic message before probing for OpenAI's shapes: no
// key of apiMessage is, in encoding/json's case-insensitive matching, a
// key openAIBody's probe reads, so a body that decodes strictly as an
// apiMessage is never one of OpenAI's.
func TestMessageKeysAreNotOpenAIKeys(t *testing.T) {
	keys := func(typ reflect.Type) []string {
		var out []string
		var walk func(reflect.Type)
		walk = func(typ reflect.Type) {
			for f := range typ.Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if f.Anonymous && name == "" {
					walk(f.Type)
					continue
				}
				if name == "" {
					name = f.Name
				}
				out = append(out, name)
			}
		}
		walk(typ)
		return out
	}
	probe := keys(reflect.TypeFor[openAIProbe]())
	if len(probe) != 4 {
		t.Fatalf("probe keys %v", probe)
	}
	for _, k := range keys(reflect.TypeFor[apiMessage]()) {
		for _, p := range probe {
			if strings.EqualFold(k, p) {
				t.Errorf("apiMessage key %q is openAIBody's probe key %q: an OpenAI body could decode as a message", k, p)
			}
		}
	}
}
