package server

import (
	"encoding/json"

	"github.com/toolgate/toolgate/api"
)

// Tool list formats of GET /v1/tools?format=: toolgate's own (the
// default), the Messages API's `tools` entries, Chat Completions function
// definitions and Responses API function tools.
const (
	formatToolgate        = ""
	formatAnthropic       = "anthropic"
	formatOpenAI          = "openai"
	formatOpenAIResponses = "openai-responses"
)

func validFormat(f string) bool {
	switch f {
	case formatToolgate, formatAnthropic, formatOpenAI, formatOpenAIResponses:
		return true
	}
	return false
}

// anthropicTool is one entry of the Messages API's `tools`: a built-in
// client tool by type and name (the API supplies its schema), or a custom
// tool with its schema.
type anthropicTool struct {
	Type        string          `json:"type,omitempty"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// openAIFunction is a Chat Completions tool: {"type":"function","function":{...}}.
type openAIFunction struct {
	Type     string             `json:"type"`
	Function openAIFunctionSpec `json:"function"`
}

type openAIFunctionSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

// notStrict names a tool a strict list leaves out and why: its schema has
// no strict form (an object of free-form keys, say).
type notStrict struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// openAIResponsesTool is a Responses API function tool: the function's
// fields sit beside "type".
type openAIResponsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// responsesCustomTool is a Responses API custom tool, the freeform kind
// Codex declares apply_patch as: its call is text following the grammar.
type responsesCustomTool struct {
	Type        string        `json:"type"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Format      grammarFormat `json:"format"`
}

// grammarFormat is a Responses custom tool's format.
type grammarFormat struct {
	Type       string `json:"type"`
	Syntax     string `json:"syntax"`
	Definition string `json:"definition"`
}

// chatCustomTool is the same tool in Chat Completions:
// {"type":"custom","custom":{...}}, its grammar one level deeper.
type chatCustomTool struct {
	Type   string         `json:"type"`
	Custom chatCustomSpec `json:"custom"`
}

type chatCustomSpec struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Format      chatGrammarFormat `json:"format"`
}

type chatGrammarFormat struct {
	Type    string      `json:"type"`
	Grammar chatGrammar `json:"grammar"`
}

type chatGrammar struct {
	Syntax     string `json:"syntax"`
	Definition string `json:"definition"`
}

// customTool renders a freeform tool in one of the OpenAI formats. It has
// no schema, so strict mode leaves it as it is.
func customTool(t api.ToolInfo, format string) any {
	if format == formatOpenAI {
		return chatCustomTool{Type: "custom", Custom: chatCustomSpec{Name: t.Name, Description: t.Description,
			Format: chatGrammarFormat{Type: "grammar", Grammar: chatGrammar{Syntax: t.Grammar.Syntax, Definition: t.Grammar.Definition}}}}
	}
	return responsesCustomTool{Type: "custom", Name: t.Name, Description: t.Description,
		Format: grammarFormat{Type: "grammar", Syntax: t.Grammar.Syntax, Definition: t.Grammar.Definition}}
}

// formatTools renders a tool list in one of the formats. The client-side
// names and the load errors appear in toolgate's own format only. strict
// (the OpenAI formats only) gives strict-mode definitions and names the
// tools that have none in not_strict. In the OpenAI formats a freeform
// tool is a custom tool with its grammar, as Codex lists apply_patch.
func formatTools(list api.ToolsResponse, format string, strict bool) any {
	tools := list.Tools
	switch format {
	case formatAnthropic:
		out := make([]anthropicTool, 0, len(tools))
		for _, t := range tools {
			if t.APIType != "" {
				out = append(out, anthropicTool{Type: t.APIType, Name: t.Name})
				continue
			}
			out = append(out, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
		return map[string]any{"tools": out}
	case formatOpenAI, formatOpenAIResponses:
		out := make([]any, 0, len(tools))
		skipped := []notStrict{}
		for _, t := range tools {
			if t.Grammar != nil {
				out = append(out, customTool(t, format))
				continue
			}
			params := plainParameters(t.InputSchema)
			if strict {
				var err error
				if params, err = strictParameters(t.InputSchema); err != nil {
					skipped = append(skipped, notStrict{Name: t.Name, Reason: err.Error()})
					continue
				}
			}
			if format == formatOpenAI {
				out = append(out, openAIFunction{Type: "function", Function: openAIFunctionSpec{Name: t.Name, Description: t.Description, Parameters: params, Strict: strict}})
			} else {
				out = append(out, openAIResponsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params, Strict: strict})
			}
		}
		if strict {
			return map[string]any{"tools": out, "not_strict": skipped}
		}
		return map[string]any{"tools": out}
	}
	return list
}
