package server

import (
	"bytes"
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

// openAIChatMessage is a Chat Completions assistant message, with every
// field the API returns in choices[].message (openai-node
// src/resources/chat/completions/completions.ts, ChatCompletionMessage):
// a client posts the message as it came, annotations, audio and the
// deprecated function_call included. Only tool_calls are run.
type openAIChatMessage struct {
	Role         string           `json:"role"`
	Content      json.RawMessage  `json:"content,omitempty"`
	ToolCalls    []openAIToolCall `json:"tool_calls"`
	Refusal      json.RawMessage  `json:"refusal,omitempty"`
	Name         string           `json:"name,omitempty"`
	Annotations  json.RawMessage  `json:"annotations,omitempty"`
	Audio        json.RawMessage  `json:"audio,omitempty"`
	FunctionCall json.RawMessage  `json:"function_call,omitempty"`
}

// openAIToolCall is one of tool_calls: a function call, or a custom tool
// call whose input is free text (openai-node
// src/resources/chat/completions/completions.ts,
// ChatCompletionMessageCustomToolCall).
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

// openAIResponsesItem is a Responses API output item; function_call and
// custom_tool_call items are calls, the others (message, reasoning) are
// passed over.
type openAIResponsesItem struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Input     string `json:"input,omitempty"` // a custom_tool_call's text
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

// openAIResponsesResponse answers a list of function_call items.
type openAIResponsesResponse struct {
	MessageID string                 `json:"message_id"`
	Output    []openAIFunctionOutput `json:"output"`
	Calls     []api.CallRecord       `json:"calls"`
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

// runOpenAI runs an OpenAI-form message and answers in the same form.
func (s *Server) runOpenAI(w http.ResponseWriter, r *http.Request, sess *coordinator.Session, format string, body []byte) error {
	var uses []api.ToolUse
	var ids []string
	var outputTypes []string // Responses: the type of each call's output item
	switch format {
	case formatOpenAI:
		var msg openAIChatMessage
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&msg); err != nil {
			return decodeError(err)
		}
		if msg.Role != "assistant" {
			return &api.Error{Code: api.CodeValidation, Message: `role must be "assistant"`, Fields: map[string]string{"role": `must be "assistant"`}}
		}
		for i, tc := range msg.ToolCalls {
			use := api.ToolUse{Type: api.TypeToolUse, ID: tc.ID, Name: tc.Function.Name, Input: openAIArguments(tc.Function.Arguments)}
			switch tc.Type {
			case "", "function":
			case "custom":
				use.Name, use.Input = tc.Custom.Name, customToolInput(tc.Custom.Input)
			default:
				return &api.Error{Code: api.CodeValidation, Message: "only function and custom tool calls can be run",
					Fields: map[string]string{fmt.Sprintf("tool_calls[%d].type", i): `must be "function" or "custom"`}}
			}
			uses = append(uses, use)
			ids = append(ids, tc.ID)
		}
	default:
		var items []openAIResponsesItem
		if err := json.Unmarshal(body, &items); err != nil {
			return decodeError(err)
		}
		for _, it := range items {
			switch it.Type {
			case "function_call":
				uses = append(uses, api.ToolUse{Type: api.TypeToolUse, ID: it.CallID, Name: it.Name, Input: openAIArguments(it.Arguments)})
				outputTypes = append(outputTypes, "function_call_output")
			case "custom_tool_call":
				uses = append(uses, api.ToolUse{Type: api.TypeToolUse, ID: it.CallID, Name: it.Name, Input: customToolInput(it.Input)})
				outputTypes = append(outputTypes, "custom_tool_call_output")
			default:
				continue
			}
			ids = append(ids, it.CallID)
		}
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
	res := s.coord.RunMessage(r.Context(), sess, msgID, uses)
	if format == formatOpenAI {
		out := openAIChatResponse{MessageID: res.MessageID, Messages: []openAIToolMessage{}, Calls: res.Calls}
		for i, tr := range res.Message.Content {
			out.Messages = append(out.Messages, openAIToolMessage{Role: "tool", ToolCallID: ids[i], Content: openAIResultText(tr)})
		}
		s.encode(w, r, http.StatusOK, out)
		return nil
	}
	out := openAIResponsesResponse{MessageID: res.MessageID, Output: []openAIFunctionOutput{}, Calls: res.Calls}
	for i, tr := range res.Message.Content {
		out.Output = append(out.Output, openAIFunctionOutput{Type: outputTypes[i], CallID: ids[i], Output: responsesOutput(tr)})
	}
	s.encode(w, r, http.StatusOK, out)
	return nil
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
