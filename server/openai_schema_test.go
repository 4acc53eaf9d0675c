package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// checkStrict walks a schema as OpenAI's strict mode reads it
// (platform.openai.com/docs/guides/structured-outputs, "Supported
// schemas") and reports what it would refuse.
func checkStrict(t *testing.T, where string, s map[string]any) {
	t.Helper()
	for k := range s {
		if !strictKeywords[k] {
			t.Errorf("%s: keyword %s is not supported in strict mode", where, k)
		}
	}
	if f, ok := s["format"].(string); ok && !slices.Contains(strictFormats, f) {
		t.Errorf("%s: format %s is not supported in strict mode", where, f)
	}
	if props, ok := s["properties"].(map[string]any); ok || s["type"] == "object" {
		if s["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties = %v, want false", where, s["additionalProperties"])
		}
		var required []string
		for _, r := range s["required"].([]any) {
			required = append(required, r.(string))
		}
		for name, p := range props {
			if !slices.Contains(required, name) {
				t.Errorf("%s: property %s is not required", where, name)
			}
			checkStrict(t, where+"."+name, p.(map[string]any))
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		checkStrict(t, where+"[]", items)
	}
	anyOf, _ := s["anyOf"].([]any)
	for _, b := range anyOf {
		checkStrict(t, where+".anyOf", b.(map[string]any))
	}
}

// strictTools is GET /v1/tools?strict=true's answer.
type strictTools struct {
	Tools     []json.RawMessage `json:"tools"`
	NotStrict []notStrict       `json:"not_strict"`
}

// TestStrictToolLists: ?strict=true gives every tool of every pool in
// strict mode's subset, marked strict; and the calls strict mode makes
// (null for a parameter left out) run. Before, the lists had no strict
// variant and chat.completions.parse() refused every tool.
func TestStrictToolLists(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "alpha\n"})
	for _, dialect := range []string{"", "&dialect=cline", "&dialect=claude_code", "&dialect=anthropic"} {
		for _, format := range []string{formatOpenAI, formatOpenAIResponses} {
			t.Run(strings.TrimPrefix(dialect, "&dialect=")+" "+format, func(t *testing.T) {
				got := decodeBody[strictTools](t, ts.do(t, http.MethodGet, "/v1/tools?strict=true&format="+format+dialect, nil), http.StatusOK)
				if len(got.Tools) == 0 || len(got.NotStrict) != 0 {
					t.Fatalf("%d tools, not strict: %+v", len(got.Tools), got.NotStrict)
				}
				for _, raw := range got.Tools {
					var tool struct {
						Name, Type string
						Strict     bool
						Parameters map[string]any
						Function   *struct {
							Name       string
							Strict     bool
							Parameters map[string]any
						}
					}
					if err := json.Unmarshal(raw, &tool); err != nil {
						t.Fatal(err)
					}
					if tool.Function != nil {
						tool.Name, tool.Strict, tool.Parameters = tool.Function.Name, tool.Function.Strict, tool.Function.Parameters
					}
					if !tool.Strict || tool.Parameters["type"] != "object" {
						t.Errorf("%s: strict %v, type %v", tool.Name, tool.Strict, tool.Parameters["type"])
					}
					checkStrict(t, tool.Name, tool.Parameters)
				}
			})
		}
	}
	t.Run("strict needs an openai format", func(t *testing.T) {
		resp := ts.do(t, http.MethodGet, "/v1/tools?strict=true&format=anthropic", nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status = %d, want 400", resp.StatusCode)
		}
	})
	// Strict mode makes the model send every parameter, null for those it
	// leaves out: toolgate takes the null as left out.
	t.Run("calls with nulls run", func(t *testing.T) {
		calls := []struct{ name, args string }{
			{"read_file", `{"path":"a.txt","task_progress":null}`},
			{"list_files", `{"path":".","recursive":null,"task_progress":null}`},
			{"search_files", `{"path":".","regex":"alpha","file_pattern":null,"task_progress":null}`},
		}
		var tcs []any
		for i, c := range calls {
			tcs = append(tcs, map[string]any{"id": "call_n" + string(rune('0'+i)), "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
		}
		got := decodeBody[openAIChatResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/default/messages", map[string]any{"role": "assistant", "tool_calls": tcs}), http.StatusOK)
		for i, rec := range got.Calls {
			if rec.Status != api.StatusSucceeded {
				t.Errorf("%s: %s: %s", calls[i].name, rec.Status, got.Messages[i].Content)
			}
		}
	})
}

// TestOpenAIToolSchemas: the schema rewrites on schemas of the shapes MCP
// servers and dialects give.
func TestOpenAIToolSchemas(t *testing.T) {
	mcp := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{` +
		`"q":{"type":"string","minLength":1,"format":"uri"},"n":{"type":"integer","default":3},` +
		`"mode":{"type":"string","enum":["a","b"]},"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}},` +
		`"pick":{"oneOf":[{"type":"string"},{"type":"number"}]}},"required":["q"]}`
	t.Run("plain", func(t *testing.T) {
		got := string(plainParameters(json.RawMessage(mcp)))
		if strings.Contains(got, "$schema") || !strings.Contains(got, `"required":["q"]`) {
			t.Errorf("plain = %s", got)
		}
		bare := string(plainParameters(json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"additionalProperties":false}`)))
		if bare != `{"type":"object","properties":{"command":{"type":"string"}},"additionalProperties":false,"required":[]}` {
			t.Errorf("plain without required = %s", bare)
		}
	})
	t.Run("strict", func(t *testing.T) {
		raw, err := strictParameters(json.RawMessage(mcp))
		if err != nil {
			t.Fatal(err)
		}
		want := `{"type":"object","properties":{` +
			`"q":{"type":"string"},"n":{"type":["integer","null"]},` +
			`"mode":{"type":["string","null"],"enum":["a","b",null]},` +
			`"tags":{"type":["array","null"],"items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"additionalProperties":false}},` +
			`"pick":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]}},` +
			`"required":["q","n","mode","tags","pick"],"additionalProperties":false}`
		if string(raw) != want {
			t.Errorf("strict =\n%s\nwant\n%s", raw, want)
		}
		var s map[string]any
		_ = json.Unmarshal(raw, &s)
		checkStrict(t, "mcp", s)
	})
	t.Run("no strict form", func(t *testing.T) {
		for _, schema := range []string{
			`{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			`{"type":"object","properties":{"x":{"allOf":[{"type":"string"}]}}}`,
		} {
			if got, err := strictParameters(json.RawMessage(schema)); err == nil {
				t.Errorf("%s: strict form %s, want an error", schema, got)
			}
		}
	})
}
