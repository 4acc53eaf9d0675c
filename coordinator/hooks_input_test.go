package coordinator

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// rangeIn is the input of read_range, a stand-in tool with a number
// parameter, which a Cline model sends as a string.
type rangeIn struct {
	Path      string `json:"path" validate:"required"`
	StartLine int    `json:"start_line"`
}

// readRange registers read_range: it answers with the line it was asked
// to start at, so a test sees the value that ran.
func readRange(r *ran) tool.Registration {
	return tool.Registration{Name: "read_range", Factory: func(name string, env tool.Env) *tool.Tool {
		return NewTool(tool.Spec[rangeIn]{
			Name: name,
			Run: func(_ context.Context, c *tool.Call, in *rangeIn) (tool.Result, error) {
				r.add(c.ToolUseID)
				return tool.TextResult(fmt.Sprintf("ok %s from %d", in.Path, in.StartLine)), nil
			},
			Paths: func(in *rangeIn) []string { return []string{in.Path} },
		})
	}}
}

// TestUpdatedInputReadAsTheModelsInput: an input that works when the
// model sends it works when a PreToolUse hook's updatedInput supplies it,
// and ends the same way: the hook's input crosses the same edge (the
// dialect's aliases, task_progress taken out, string coercion) as the
// model's.
func TestUpdatedInputReadAsTheModelsInput(t *testing.T) {
	scripts := t.TempDir()
	cases := []struct {
		name     string
		tool     string
		input    string
		wantText string
	}{
		{"Cline's absolutePath alias", "write_to_file", `{"absolutePath":"b.txt","content":"y"}`, "ok b.txt"},
		{"task_progress", "write_to_file", `{"path":"b.txt","content":"y","task_progress":"- [x] write b"}`, "ok b.txt"},
		{"a number as a string", "read_range", `{"path":"a.txt","start_line":"5"}`, "ok a.txt from 5"},
		{"an empty number as a missing one", "read_range", `{"path":"a.txt","start_line":""}`, "ok a.txt from 0"},
		{"a boolean as a string", "execute_command", `{"command":"ls","requires_approval":"false"}`, "ran ls"},
	}
	files := map[string]string{"a.txt": "one\n"}
	// What the model sends when a hook replaces its input.
	replaced := map[string]string{
		"write_to_file":   `{"path":"a.txt","content":"x"}`,
		"read_range":      `{"path":"a.txt","start_line":1}`,
		"execute_command": `{"command":"pwd"}`,
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			allowAll := Config{PolicyConfig: PolicyConfig{AllowAll: true}}
			p := newTestPolicy(t, allowAll, files, readRange(&ran{}))
			res, rec := run(t, p, p.session(t, api.Permissions{}), rawUse(fmt.Sprintf("m%d", i), tc.tool, tc.input))
			if rec.Status != api.StatusSucceeded || !strings.Contains(resultText(res), tc.wantText) {
				t.Fatalf("from the model: %s %q, want succeeded with %q", rec.Status, resultText(res), tc.wantText)
			}

			hooked := allowAll
			hooked.Hooks = pre(tc.tool, command(writeHook(t, scripts, tc.name, "echo '"+`{"updatedInput":`+tc.input+"}'")))
			hooked.Sandbox.Writable = []string{scripts}
			p = newTestPolicy(t, hooked, files, readRange(&ran{}))
			res, rec = run(t, p, p.session(t, api.Permissions{}), rawUse(fmt.Sprintf("h%d", i), tc.tool, replaced[tc.tool]))
			if rec.Status != api.StatusSucceeded || !strings.Contains(resultText(res), tc.wantText) {
				t.Errorf("from a hook: %s %q, want succeeded with %q", rec.Status, resultText(res), tc.wantText)
			}
		})
	}
}

// TestUpdatedInputShownCoerced: the input a hook's updatedInput makes is
// the coerced one, as the model's is: the approval a hook's ask puts
// before the user shows start_line as the number that runs, the same
// input the model's own call shows.
func TestUpdatedInputShownCoerced(t *testing.T) {
	scripts := t.TempDir()
	files := map[string]string{"a.txt": "one\n"}
	const sent, want = `{"path":"a.txt","start_line":"5"}`, `{"path":"a.txt","start_line":5}`

	p := newTestPolicy(t, Config{}, files, readRange(&ran{}))
	s := p.session(t, api.Permissions{Ask: []string{"read_range"}})
	res, rec, asked := approveAll(t, p, s, rawUse("m1", "read_range", sent))
	if rec.Status != api.StatusSucceeded || len(asked) != 1 {
		t.Fatalf("from the model: %s %q after %d approvals, want succeeded after 1", rec.Status, resultText(res), len(asked))
	}
	if got := string(asked[0].Preview.Input); got != want {
		t.Fatalf("the model's input shown as %s, want %s", got, want)
	}

	hook := writeHook(t, scripts, "ask", ccPreToolUse("ask", "check the range", sent))
	cfg := Config{AgentConfig: AgentConfig{Hooks: pre("read_range", command(hook))}}
	cfg.Sandbox.Writable = []string{scripts}
	p = newTestPolicy(t, cfg, files, readRange(&ran{}))
	s = p.session(t, api.Permissions{Allow: []string{"read_range"}})
	res, rec, asked = approveAll(t, p, s, rawUse("h1", "read_range", `{"path":"a.txt"}`))
	if rec.Status != api.StatusSucceeded || len(asked) != 1 {
		t.Fatalf("from a hook: %s %q after %d approvals, want succeeded after 1", rec.Status, resultText(res), len(asked))
	}
	if got := string(asked[0].Preview.Input); got != want {
		t.Errorf("a hook's updatedInput shown as %s, want %s", got, want)
	}
	if !strings.Contains(resultText(res), "ok a.txt from 5") {
		t.Errorf("result = %q, want it to run from line 5", resultText(res))
	}
}

// rawUse is a tool_use whose input is JSON text as a model wrote it.
func rawUse(id, name, input string) api.ToolUse {
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: name, Input: []byte(input)}
}
