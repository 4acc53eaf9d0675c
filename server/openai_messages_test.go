package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator"
)

// TestOpenAIToolCalls posts OpenAI's two forms of tool calls, in the
// shapes of the API reference (Chat Completions: assistant message
// tool_calls with arguments as a JSON string, answered by role "tool"
// messages; Responses: function_call items answered by
// function_call_output items, as openai/codex sends and reads them), in a
// cline and a claude_code session.
func TestOpenAIToolCalls(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "alpha\n", "p.png": png})
	t.Run("chat completions", func(t *testing.T) {
		msg := map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"a.txt"}`}},
			map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":`}},
			map[string]any{"id": "call_3", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"p.png"}`}},
		}}
		got := decodeBody[openAIChatResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", msg), http.StatusOK)
		if len(got.Messages) != 3 {
			t.Fatalf("messages = %+v", got.Messages)
		}
		for i, id := range []string{"call_1", "call_2", "call_3"} {
			if m := got.Messages[i]; m.Role != "tool" || m.ToolCallID != id {
				t.Errorf("message %d = %+v, want role tool for %s", i, m, id)
			}
		}
		if !strings.Contains(got.Messages[0].Content, "alpha") || got.Calls[1].Status != "invalid" ||
			!strings.Contains(got.Messages[2].Content, "image/png") || !strings.Contains(got.Messages[2].Content, "cannot carry images") {
			t.Errorf("answers = %+v, calls = %+v", got.Messages, got.Calls)
		}
	})
	t.Run("responses items in a claude_code session", func(t *testing.T) {
		s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"})
		items := []any{
			map[string]any{"type": "reasoning", "id": "rs_1"},
			map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "Read", "arguments": `{"file_path":"` + dir + `/a.txt"}`},
			map[string]any{"type": "message", "id": "msg_1"},
			map[string]any{"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "Glob", "arguments": `{"pattern":"*.txt"}`},
		}
		got := decodeBody[openAIResponsesResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", items), http.StatusOK)
		if len(got.Output) != 2 || got.Output[0].Type != "function_call_output" || got.Output[0].CallID != "call_a" || got.Output[1].CallID != "call_b" {
			t.Fatalf("output = %+v", got.Output)
		}
		if got.Output[0].Output != "     1\talpha\n" || !strings.HasSuffix(got.Output[1].Output, "/a.txt") {
			t.Errorf("output = %+v", got.Output)
		}
	})
	t.Run("a call without an id", func(t *testing.T) {
		msg := map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"type": "function", "function": map[string]any{"name": "read_file", "arguments": "{}"}}}}
		resp := ts.do(t, http.MethodPost, "/v1/sessions/default/messages", msg)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status = %d, want 400", resp.StatusCode)
		}
	})
}
