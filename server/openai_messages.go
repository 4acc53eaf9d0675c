package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// OpenAI's wire formats for tool calls, as the API reference gives them
// (platform.openai.com/docs/api-reference/chat/create: an assistant
// message's tool_calls, arguments a JSON string, answered by role "tool"
// messages; /responses/create: function_call items answered by
// function_call_output items). They run as tool_use blocks.

// openAIChatMessage is a Chat Completions assistant message. Only
// tool_calls are read: the rest of what a client posts (content, refusal,
// annotations, audio, the deprecated function_call, and what the SDK's
// helpers add: parse()'s parsed, a streamed message's reasoning_content)
// is ignored, as in the Responses items.
type openAIChatMessage struct {
	Role      string           `json:"role"`
	ToolCalls []openAIToolCall `json:"tool_calls"`
}

// openAIToolCall is one of tool_calls: a function call, or a custom tool
// call whose input is free text (openai-node
// src/resources/chat/completions/completions.ts,
// ChatCompletionMessageCustomToolCall). The SDK's additions (a leftover
// streaming index, parse()'s parsed_arguments) are ignored.
type openAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	Custom struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

// customToolInput is the input of a custom tool call: its free text as
// the tool's input parameter, the shape apply_patch takes the patch in,
// as Codex's function form of apply_patch sends it too (openai/codex
// codex-rs/core/src/tools/spec.rs, ApplyPatchToolArgs { input }). A tool
// without that parameter refuses it as an invalid input, answered as the
// call's result.
func customToolInput(text string) json.RawMessage {
	raw, _ := json.Marshal(struct {
		Input string `json:"input"`
	}{text})
	return raw
}

// openAIToolMessage answers one tool call in Chat Completions.
type openAIToolMessage struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

// openAIChatResponse answers an assistant message with tool_calls.
type openAIChatResponse struct {
	MessageID string              `json:"message_id"`
	Messages  []openAIToolMessage `json:"messages"`
	Calls     []api.CallRecord    `json:"calls"`
}

// openAIFunctionOutput answers one function_call item
// (function_call_output) or custom_tool_call item
// (custom_tool_call_output). Its output is a string, or, when the result
// holds an image, the list of input_text and input_image items the
// Responses API also takes there (openai-node
// src/resources/responses/responses.ts, ResponseFunctionCallOutputItemList;
// openai/codex codex-rs/protocol/src/models.rs, FunctionCallOutputPayload).
type openAIFunctionOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

// openAIOutputItem is one item of a function_call_output's list.
type openAIOutputItem struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

// openAIResponsesResponse answers a list of Responses items: one output
// item per call item, in order, each in its call's output shape.
type openAIResponsesResponse struct {
	MessageID string           `json:"message_id"`
	Output    []any            `json:"output"`
	Calls     []api.CallRecord `json:"calls"`
}

// openAIBody tells the OpenAI forms of a posted message from the
// Messages API's and unwraps a whole API response: a JSON array is
// Responses items, an object with tool_calls a Chat Completions message.
// A Response object ("object": "response") stands for its output items
// and a ChatCompletion ("object": "chat.completion") for its one choice's
// message, so a client may post what the API returned as it came. It
// returns the format and the body to decode, or "" for the Messages API.
// openAIProbe holds the keys of a body that tell OpenAI's shapes.
type openAIProbe struct {
	Object    string          `json:"object"`
	ToolCalls json.RawMessage `json:"tool_calls"`
	Output    json.RawMessage `json:"output"`
	Choices   []struct {
		Message json.RawMessage `json:"message"`
	} `json:"choices"`
}

func openAIBody(body []byte) (string, []byte, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return formatOpenAIResponses, trimmed, nil
	}
	var probe openAIProbe
	if json.Unmarshal(trimmed, &probe) != nil {
		return "", body, nil
	}
	switch {
	case probe.Object == "response" && len(probe.Output) > 0:
		return formatOpenAIResponses, probe.Output, nil
	case probe.Object == "chat.completion":
		if len(probe.Choices) != 1 || len(probe.Choices[0].Message) == 0 {
			return "", nil, &api.Error{Code: api.CodeValidation, Message: "a chat completion is run by its one choice's message",
				Fields: map[string]string{"choices": "must hold exactly one choice with a message"}}
		}
		return formatOpenAI, probe.Choices[0].Message, nil
	case len(probe.ToolCalls) > 0:
		return formatOpenAI, trimmed, nil
	}
	return "", body, nil
}

// openAIArguments is a call's arguments as a tool input: the JSON object
// the string holds, or, when it holds none, the string itself, which the
// tool then refuses as invalid input (the model's mistake is answered as
// a result).
func openAIArguments(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	quoted, _ := json.Marshal(args)
	return quoted
}

// openAIRun is one posted call that runs: the tool_use blocks it runs as
// (one, or one per command of a shell call) and how their results answer
// it, in the call's own form.
type openAIRun struct {
	uses   []api.ToolUse
	answer func(results []api.ToolResult, calls []api.CallRecord) any
}

// runOpenAI runs an OpenAI-form message and answers in the same form.
func (s *Server) runOpenAI(w http.ResponseWriter, r *http.Request, sess *coordinator.Session, format string, body []byte) error {
	var runs []openAIRun
	var err error
	if format == formatOpenAI {
		runs, err = chatRuns(body)
	} else {
		runs, err = responsesRuns(body)
	}
	if err != nil {
		return err
	}
	var uses []api.ToolUse
	for _, run := range runs {
		uses = append(uses, run.uses...)
	}
	seen := map[string]bool{}
	for i, use := range uses {
		if err := checkToolUse(use, fmt.Sprintf("calls[%d].", i)); err != nil {
			return err
		}
		if seen[use.ID] {
			return &api.Error{Code: api.CodeValidation, Message: "two calls share one id",
				Fields: map[string]string{fmt.Sprintf("calls[%d].id", i): "is used twice"}}
		}
		seen[use.ID] = true
	}
	msgID := newMessageID()
	answer := func(ctx context.Context) any {
		res := s.coord.RunMessage(ctx, sess, msgID, uses)
		answers := make([]any, 0, len(runs))
		at := 0
		for _, run := range runs {
			n := len(run.uses)
			answers = append(answers, run.answer(res.Message.Content[at:at+n], res.Calls[at:at+n]))
			at += n
		}
		if format == formatOpenAI {
			out := openAIChatResponse{MessageID: res.MessageID, Messages: make([]openAIToolMessage, 0, len(answers)), Calls: res.Calls}
			for _, a := range answers {
				out.Messages = append(out.Messages, a.(openAIToolMessage))
			}
			return out
		}
		return openAIResponsesResponse{MessageID: res.MessageID, Output: answers, Calls: res.Calls}
	}
	// Prefer works as on Anthropic-shaped messages (handle_prefer.go): a
	// call waiting for a person is answered 202 instead of holding the
	// request open.
	if p, ok := preferenceOf(r); ok {
		s.answerPreferring(w, r, sess, p, msgID, sess.Events.LastID(), ofMessage(msgID, uses), answer)
		return nil
	}
	s.encode(w, r, http.StatusOK, answer(r.Context()))
	return nil
}

// chatRuns reads a Chat Completions assistant message's tool calls, each
// answered by a role "tool" message.
func chatRuns(body []byte) ([]openAIRun, error) {
	var msg openAIChatMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		return nil, decodeError(err)
	}
	if msg.Role != "assistant" {
		return nil, &api.Error{Code: api.CodeValidation, Message: `role must be "assistant"`, Fields: map[string]string{"role": `must be "assistant"`}}
	}
	runs := make([]openAIRun, 0, len(msg.ToolCalls))
	for i, tc := range msg.ToolCalls {
		use := api.ToolUse{Type: api.TypeToolUse, ID: tc.ID, Name: tc.Function.Name, Input: openAIArguments(tc.Function.Arguments)}
		switch tc.Type {
		case "", "function":
		case "custom":
			use.Name, use.Input = tc.Custom.Name, customToolInput(tc.Custom.Input)
		default:
			return nil, &api.Error{Code: api.CodeValidation, Message: "only function and custom tool calls can be run",
				Fields: map[string]string{fmt.Sprintf("tool_calls[%d].type", i): `must be "function" or "custom"`}}
		}
		id := tc.ID
		runs = append(runs, openAIRun{uses: []api.ToolUse{use}, answer: func(res []api.ToolResult, _ []api.CallRecord) any {
			return openAIToolMessage{Role: "tool", ToolCallID: id, Content: openAIResultText(res[0])}
		}})
	}
	return runs, nil
}

// openAIResultText is a tool_result as the one string OpenAI's formats carry:
// its texts joined, an image as a note saying what it was.
func openAIResultText(tr api.ToolResult) string {
	var parts []string
	for _, c := range tr.Content {
		switch {
		case c.Type == api.TypeText:
			parts = append(parts, c.Text)
		case c.Source != nil:
			parts = append(parts, fmt.Sprintf("[An image (%s, %d bytes base64) was returned; this format cannot carry images.]", c.Source.MediaType, len(c.Source.Data)))
		default:
			parts = append(parts, fmt.Sprintf("[A %s block was returned; this format cannot carry it.]", c.Type))
		}
	}
	return strings.Join(parts, "\n")
}

// responsesOutput is a tool_result as a function_call_output's output: its
// text when it holds only text, else its parts as input_text and
// input_image items (an image as a data: URL, as codex sends one).
func responsesOutput(tr api.ToolResult) any {
	images := false
	for _, c := range tr.Content {
		images = images || c.Type == api.TypeImage && c.Source != nil && c.Source.Type == "base64"
	}
	if !images {
		return openAIResultText(tr)
	}
	items := make([]openAIOutputItem, 0, len(tr.Content))
	for _, c := range tr.Content {
		switch {
		case c.Type == api.TypeImage && c.Source != nil && c.Source.Type == "base64":
			items = append(items, openAIOutputItem{Type: "input_image", ImageURL: "data:" + c.Source.MediaType + ";base64," + c.Source.Data})
		default:
			items = append(items, openAIOutputItem{Type: "input_text", Text: openAIResultText(api.ToolResult{Content: []api.Content{c}})})
		}
	}
	return items
}
