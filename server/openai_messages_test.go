package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// outputItem is one item of a function_call_output's list.
type outputItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// functionOutputs is a Responses answer whose items are all
// function_call_output or custom_tool_call_output items.
type functionOutputs struct {
	MessageID string                 `json:"message_id"`
	Output    []openAIFunctionOutput `json:"output"`
	Calls     []api.CallRecord       `json:"calls"`
}

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
		got := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", items), http.StatusOK)
		if len(got.Output) != 2 || got.Output[0].Type != "function_call_output" || got.Output[0].CallID != "call_a" || got.Output[1].CallID != "call_b" {
			t.Fatalf("output = %+v", got.Output)
		}
		if fmt.Sprint(got.Output[0].Output) != "1\talpha\n2\t" || fmt.Sprint(got.Output[1].Output) != "a.txt" {
			t.Errorf("output = %+v", got.Output)
		}
	})
	// The message as the API returns it in choices[0].message, every field
	// of openai-node's ChatCompletionMessage
	// (src/resources/chat/completions/completions.ts) present, as
	// openai-python's message.model_dump() gives it.
	t.Run("chat completions message as the API returns it", func(t *testing.T) {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}, "audio": nil, "function_call": nil,
			"tool_calls": []any{map[string]any{"id": "call_9", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"a.txt"}`}}}}
		got := decodeBody[openAIChatResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", msg), http.StatusOK)
		if len(got.Messages) != 1 || got.Messages[0].ToolCallID != "call_9" || !strings.Contains(got.Messages[0].Content, "alpha") {
			t.Errorf("messages = %+v", got.Messages)
		}
	})
	// A function_call_output's output may be a list of input_text and
	// input_image items (openai-node src/resources/responses/responses.ts,
	// ResponseFunctionCallOutputItemList; openai/codex
	// codex-rs/protocol/src/models.rs, FunctionCallOutputPayload): an image
	// goes back as an image, a text-only result as a string.
	t.Run("responses output carries an image", func(t *testing.T) {
		items := []any{
			map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_img", "name": "read_file", "arguments": `{"path":"p.png"}`, "status": "completed"},
			map[string]any{"type": "function_call", "id": "fc_2", "call_id": "call_txt", "name": "read_file", "arguments": `{"path":"a.txt"}`, "status": "completed"},
		}
		got := decodeBody[struct {
			Output []struct {
				CallID string          `json:"call_id"`
				Output json.RawMessage `json:"output"`
			} `json:"output"`
		}](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", items), http.StatusOK)
		if len(got.Output) != 2 {
			t.Fatalf("output = %+v", got.Output)
		}
		var parts []outputItem
		if err := json.Unmarshal(got.Output[0].Output, &parts); err != nil {
			t.Fatalf("image output %s is not a list of items: %v", got.Output[0].Output, err)
		}
		want := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte(png))
		if !slices.ContainsFunc(parts, func(p outputItem) bool {
			return p.Type == "input_image" && p.ImageURL == want
		}) {
			t.Errorf("image output = %s, want an input_image with %s", got.Output[0].Output, want)
		}
		var text string
		if err := json.Unmarshal(got.Output[1].Output, &text); err != nil || !strings.Contains(text, "alpha") {
			t.Errorf("text output = %s, want a string", got.Output[1].Output)
		}
	})
	// The whole objects the APIs answer with (openai-node
	// src/resources/chat/completions/completions.ts ChatCompletion,
	// src/resources/responses/responses.ts Response), posted as they came.
	t.Run("a whole ChatCompletion", func(t *testing.T) {
		completion := map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "logprobs": nil, "message": map[string]any{
				"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{},
				"tool_calls": []any{map[string]any{"id": "call_c1", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"a.txt"}`}}}}}},
			"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}, "system_fingerprint": nil}
		got := decodeBody[openAIChatResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", completion), http.StatusOK)
		if len(got.Messages) != 1 || got.Messages[0].ToolCallID != "call_c1" || !strings.Contains(got.Messages[0].Content, "alpha") {
			t.Errorf("messages = %+v", got.Messages)
		}
		completion["choices"] = []any{}
		resp := ts.do(t, http.MethodPost, "/v1/sessions/default/messages", completion)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("no choice: status = %d, want 400", resp.StatusCode)
		}
	})
	t.Run("a whole Response", func(t *testing.T) {
		response := map[string]any{"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4.1",
			"output": []any{
				map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}},
				map[string]any{"type": "function_call", "id": "fc_9", "call_id": "call_r1", "name": "read_file", "arguments": `{"path":"a.txt"}`, "status": "completed"},
			}, "parallel_tool_calls": true, "tools": []any{}, "usage": nil}
		got := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", response), http.StatusOK)
		if len(got.Output) != 1 || got.Output[0].CallID != "call_r1" || !strings.Contains(fmt.Sprint(got.Output[0].Output), "alpha") {
			t.Errorf("output = %+v", got.Output)
		}
	})
	// Custom tool calls carry free text, not JSON arguments (openai-node
	// src/resources/responses/responses.ts ResponseCustomToolCall and
	// ResponseCustomToolCallOutput; src/resources/chat/completions/
	// completions.ts ChatCompletionMessageCustomToolCall): Codex sends
	// apply_patch so, the patch as the text (openai/codex
	// codex-rs/core/src/tools/spec.rs, whose function form takes it as
	// {"input": ...}). Each is answered in kind; one to a tool that takes
	// no such text is answered as an invalid call, never left out.
	t.Run("custom tool calls", func(t *testing.T) {
		patch := func(name string) string {
			return "*** Begin Patch\n*** Add File: " + name + "\n+made by a custom call\n*** End Patch\n"
		}
		// The edits are allowed, so that they run without an approval.
		sess := newSessionOf(t, ts, map[string]any{"permissions": map[string]any{"allow": []string{"apply_patch"}}})
		path := "/v1/sessions/" + sess.ID + "/messages"
		items := []any{
			map[string]any{"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_p1", "name": "apply_patch", "input": patch("c1.txt"), "status": "completed"},
			map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_f1", "name": "read_file", "arguments": `{"path":"a.txt"}`},
			map[string]any{"type": "custom_tool_call", "id": "ctc_2", "call_id": "call_p2", "name": "read_file", "input": "a.txt"},
		}
		got := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, path, items), http.StatusOK)
		if len(got.Output) != 3 {
			t.Fatalf("output = %+v", got.Output)
		}
		for i, want := range []struct{ typ, id string }{{"custom_tool_call_output", "call_p1"}, {"function_call_output", "call_f1"}, {"custom_tool_call_output", "call_p2"}} {
			if got.Output[i].Type != want.typ || got.Output[i].CallID != want.id {
				t.Errorf("output %d = %s %s, want %s %s", i, got.Output[i].Type, got.Output[i].CallID, want.typ, want.id)
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, "c1.txt")); err != nil || string(b) != "made by a custom call\n" {
			t.Errorf("c1.txt = %q, %v; calls = %+v", b, err, got.Calls)
		}
		if got.Calls[2].Status != "invalid" {
			t.Errorf("a custom call to read_file: %+v", got.Calls[2])
		}

		msg := map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_c1", "type": "custom", "custom": map[string]any{"name": "apply_patch", "input": patch("c2.txt")}},
		}}
		chat := decodeBody[openAIChatResponse](t, ts.do(t, http.MethodPost, path, msg), http.StatusOK)
		if len(chat.Messages) != 1 || chat.Messages[0].Role != "tool" || chat.Messages[0].ToolCallID != "call_c1" {
			t.Errorf("messages = %+v", chat.Messages)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "c2.txt")); err != nil || string(b) != "made by a custom call\n" {
			t.Errorf("c2.txt = %q, %v; calls = %+v", b, err, chat.Calls)
		}
		msg["tool_calls"] = []any{map[string]any{"id": "call_x", "type": "retrieval"}}
		resp := ts.do(t, http.MethodPost, path, msg)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("a tool call of another type: status = %d, want 400", resp.StatusCode)
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
