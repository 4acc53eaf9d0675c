package server

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestOpenAISDKMessageShapes posts the messages the openai SDK's helpers
// produce, with the fields they add beyond the API's message (openai-node
// lib/ChatCompletionStream: a streamed message keeps each tool call's
// index and, from reasoning models behind compatible servers,
// reasoning_content; lib/parser: parse() adds message.parsed and
// function.parsed_arguments). They run as the bare message does; what is
// malformed is still refused.
func TestOpenAISDKMessageShapes(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "alpha\n"})
	call := func(id string) map[string]any {
		return map[string]any{"index": 0, "id": id, "type": "function", "function": map[string]any{
			"name": "read_file", "arguments": `{"path":"a.txt"}`, "parsed_arguments": map[string]any{"path": "a.txt"}}}
	}
	accepted := map[string]map[string]any{
		"finalChatCompletion message": {"role": "assistant", "content": nil, "refusal": nil, "parsed": nil,
			"tool_calls": []any{call("call_s1")}},
		"reasoning fields": {"role": "assistant", "content": "", "reasoning_content": "I should read a.txt", "reasoning": "same",
			"tool_calls": []any{call("call_s2")}},
		"every field of the API's message": {"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}, "audio": nil,
			"function_call": nil, "tool_calls": []any{call("call_s3")}},
		"a whole parsed completion": {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "logprobs": nil,
				"message": map[string]any{"role": "assistant", "content": nil, "parsed": nil, "refusal": nil, "tool_calls": []any{call("call_s4")}}}}},
	}
	for name, msg := range accepted {
		t.Run(name, func(t *testing.T) {
			got := decodeBody[openAIChatResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", msg), http.StatusOK)
			if len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content, "alpha") || got.Calls[0].Status != api.StatusSucceeded {
				t.Errorf("answer = %+v, calls = %+v", got.Messages, got.Calls)
			}
		})
	}
	refused := map[string]map[string]any{
		"tool_calls not a list":      {"role": "assistant", "tool_calls": "read_file"},
		"arguments not a string":     {"role": "assistant", "tool_calls": []any{map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "read_file", "arguments": map[string]any{"path": "a.txt"}}}}},
		"a user message":             {"role": "user", "tool_calls": []any{call("call_u")}},
		"a call of an unknown type":  {"role": "assistant", "tool_calls": []any{map[string]any{"id": "c", "type": "retrieval"}}},
		"a call whose id is missing": {"role": "assistant", "tool_calls": []any{map[string]any{"type": "function", "function": map[string]any{"name": "read_file", "arguments": "{}"}}}},
	}
	for name, msg := range refused {
		t.Run("refused: "+name, func(t *testing.T) {
			resp := ts.do(t, http.MethodPost, "/v1/sessions/default/messages", msg)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", resp.StatusCode)
			}
		})
	}
}

// TestOpenAIArgumentsNotJSON: arguments that do not parse are the model's
// mistake, answered as the call's result, which names the tool and says
// the arguments are not valid JSON (before: "- : must be an object, got
// string").
func TestOpenAIArgumentsNotJSON(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "alpha\n"})
	msg := map[string]any{"role": "assistant", "tool_calls": []any{
		map[string]any{"id": "call_bad", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"a.txt"`}},
		map[string]any{"id": "call_twice", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `"{\"path\":\"a.txt\"}"`}},
	}}
	got := decodeBody[openAIChatResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", msg), http.StatusOK)
	for i, want := range []string{"the arguments are not valid JSON", "a JSON string holding JSON"} {
		text := got.Messages[i].Content
		if got.Calls[i].Status != api.StatusInvalid || !strings.Contains(text, "read_file") || !strings.Contains(text, want) {
			t.Errorf("answer %d = %q (%s), want an invalid call naming read_file, saying %q", i, text, got.Calls[i].Status, want)
		}
	}
	items := []any{map[string]any{"type": "function_call", "call_id": "call_r", "name": "Read", "arguments": `{"file_path":`}}
	s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"})
	resp := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", items), http.StatusOK)
	if text, _ := resp.Output[0].Output.(string); !strings.Contains(text, "Read") || !strings.Contains(text, "not valid JSON") {
		t.Errorf("claude_code answer = %q", text)
	}
}

// TestOpenAIAgentsSDKCalls posts the Agents SDK's own function call items
// (@openai/agents-core dist/types/protocol.mjs FunctionCallItem: callId,
// providerData) and gets the SDK's FunctionCallResultItem back, an image
// as the SDK's input_image item rather than JSON text.
func TestOpenAIAgentsSDKCalls(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	ts, _ := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "alpha\n", "p.png": png})
	items := []any{
		map[string]any{"type": "message", "role": "assistant", "status": "completed", "content": []any{map[string]any{"type": "output_text", "text": "reading"}}},
		map[string]any{"type": "function_call", "id": "fc_1", "callId": "call_sdk1", "name": "read_file", "arguments": `{"path":"a.txt"}`,
			"status": "completed", "providerData": map[string]any{"type": "function_call"}},
		map[string]any{"type": "function_call", "callId": "call_sdk2", "name": "read_file", "arguments": `{"path":"p.png"}`},
	}
	got := decodeBody[agentsAnswer](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", items), http.StatusOK)
	if len(got.Output) != 2 {
		t.Fatalf("output = %+v", got.Output)
	}
	first := got.Output[0]
	if first.Type != "function_call_result" || first.CallID != "call_sdk1" || first.Name != "read_file" || first.Status != "completed" ||
		!strings.Contains(string(first.Output), "alpha") {
		t.Errorf("first = %+v (%s)", first, first.Output)
	}
	var parts []struct{ Type, Text, Image string }
	if err := json.Unmarshal(got.Output[1].Output, &parts); err != nil {
		t.Fatalf("image output %s: %v", got.Output[1].Output, err)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte(png))
	found := false
	for _, p := range parts {
		found = found || p.Type == "input_image" && p.Image == want
	}
	if !found {
		t.Errorf("image output = %s, want an input_image item with the image", got.Output[1].Output)
	}
}

// agentsAnswer is an answer of Agents SDK function_call_result items.
type agentsAnswer struct {
	Output []struct {
		Type   string          `json:"type"`
		Name   string          `json:"name"`
		CallID string          `json:"callId"`
		Status string          `json:"status"`
		Output json.RawMessage `json:"output"`
	} `json:"output"`
}
