package server

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator"
)

// listedTool is a tool entry of any GET /v1/tools format, read loosely.
type listedTool struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Format      *struct {
		Type       string `json:"type"`
		Syntax     string `json:"syntax"`
		Definition string `json:"definition"`
	} `json:"format"`
	Custom *struct {
		Name   string `json:"name"`
		Format struct {
			Type    string `json:"type"`
			Grammar struct {
				Syntax     string `json:"syntax"`
				Definition string `json:"definition"`
			} `json:"grammar"`
		} `json:"format"`
	} `json:"custom"`
	InputSchema json.RawMessage `json:"input_schema"`
	Parameters  json.RawMessage `json:"parameters"`
}

// codexTool is the tool called name of a codex tool list in a format.
func codexTool(t *testing.T, ts *testServer, query, name string) listedTool {
	t.Helper()
	list := decodeBody[struct {
		Tools []listedTool `json:"tools"`
	}](t, ts.do(t, http.MethodGet, "/v1/tools?dialect=codex&"+query, nil), http.StatusOK)
	for _, tl := range list.Tools {
		if tl.Name == name || (tl.Custom != nil && tl.Custom.Name == name) {
			return tl
		}
	}
	t.Fatalf("%s: no %s in %+v", query, name, list.Tools)
	return listedTool{}
}

// TestCodexApplyPatchListedAsCustom: the codex dialect lists apply_patch
// as the real Codex CLI declares it in its first request (the harness's
// recording): a custom tool with a Lark grammar, not a function taking
// input; in Chat Completions the same custom tool in that API's shape.
// The Anthropic format keeps its input schema.
func TestCodexApplyPatchListedAsCustom(t *testing.T) {
	raw, err := os.ReadFile("../internal/conformance/codex/testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var recorded []listedTool
	if err := json.Unmarshal(raw, &recorded); err != nil {
		t.Fatal(err)
	}
	var want *listedTool
	for i := range recorded {
		if recorded[i].Name == "apply_patch" {
			want = &recorded[i]
		}
	}
	if want == nil || want.Format == nil {
		t.Fatalf("the recording has no apply_patch with a format: %s", raw)
	}
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	for _, q := range []string{"format=openai-responses", "format=openai-responses&strict=true"} {
		got := codexTool(t, ts, q, "apply_patch")
		if got.Type != want.Type || got.Format == nil || got.Format.Type != want.Format.Type || got.Format.Syntax != want.Format.Syntax {
			t.Errorf("%s: apply_patch %+v, want type %s with format %s/%s as recorded", q, got, want.Type, want.Format.Type, want.Format.Syntax)
			continue
		}
		if !strings.HasPrefix(got.Description, want.Description) || got.Parameters != nil {
			t.Errorf("%s: description %q or parameters %s differ from the recording's %q", q, got.Description, got.Parameters, want.Description)
		}
		for _, marker := range []string{"*** Begin Patch", "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ", "@@", "*** End of File", "*** End Patch"} {
			if !strings.Contains(got.Format.Definition, marker) {
				t.Errorf("%s: the grammar lacks %q", q, marker)
			}
		}
	}
	chat := codexTool(t, ts, "format=openai", "apply_patch")
	if chat.Type != "custom" || chat.Custom == nil || chat.Custom.Format.Type != "grammar" || chat.Custom.Format.Grammar.Syntax != "lark" ||
		!strings.Contains(chat.Custom.Format.Grammar.Definition, "*** Begin Patch") {
		t.Errorf("chat completions apply_patch %+v, want a custom tool with a lark grammar", chat)
	}
	if exec := codexTool(t, ts, "format=openai-responses", "exec_command"); exec.Type != "function" || exec.Parameters == nil {
		t.Errorf("exec_command %+v, want a function tool", exec)
	}
	anth := codexTool(t, ts, "format=anthropic", "apply_patch")
	if anth.Type != "" || anth.Format != nil || !strings.Contains(string(anth.InputSchema), `"input"`) {
		t.Errorf("anthropic apply_patch %+v, want its input schema", anth)
	}
}
