package coordinator_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

type partsInput struct {
	Texts []string `json:"texts"`
}

// TestEmptyTextBlocksDropped has a tool answer with empty text blocks:
// the Messages API refuses a tool_result holding one, so they are dropped,
// and a result left with nothing says so in Cline's words.
func TestEmptyTextBlocksDropped(t *testing.T) {
	parts := tool.Registration{Name: "parts", Factory: func(name string, _ tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[partsInput]{Name: name, Description: "Answers with the given text blocks.",
			Run: func(_ context.Context, _ *tool.Call, in *partsInput) (tool.Result, error) {
				var r tool.Result
				for _, s := range in.Texts {
					r.Content = append(r.Content, api.TextContent(s))
				}
				return r, nil
			}})
	}}
	g := newGate()
	close(g.release)
	c, s := newGateCoordinator(t, g, parts)
	for _, tc := range []struct {
		name  string
		texts []string
		want  []string
	}{
		{"empty blocks among others", []string{"", "kept", "", "also kept"}, []string{"kept", "also kept"}},
		{"only empty blocks", []string{"", ""}, []string{"(tool did not return anything)"}},
		{"no blocks", nil, []string{"(tool did not return anything)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input, _ := json.Marshal(partsInput{Texts: tc.texts})
			res, rec := execute(t, c, t.Context(), s, api.ToolUse{Type: api.TypeToolUse, ID: coordinator.NewID("toolu_"), Name: "parts", Input: input})
			if rec.Status != api.StatusSucceeded {
				t.Fatalf("status %s", rec.Status)
			}
			var got []string
			for _, c := range res.Content {
				got = append(got, c.Text)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("content %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("content %q, want %q", got, tc.want)
				}
			}
		})
	}
}
