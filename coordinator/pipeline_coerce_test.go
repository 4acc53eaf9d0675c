package coordinator

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// lineInput has one typed parameter, which coerceStrings looks at.
type lineInput struct {
	Path string `json:"path" validate:"required" jsonschema:"a path"`
	Line int    `json:"line,omitempty" jsonschema:"a line"`
}

// TestPrepareCoercesOnce: the prepare stage coerces a call's input once.
// An input with an escape in it takes coercion's full decode (namesAny
// cannot tell from the bytes), so a second pass would show as that
// decode's allocations again; before, DecodeInput coerced the input the
// stage had just coerced (30 allocations where 18 do).
func TestPrepareCoercesOnce(t *testing.T) {
	c := New(Options{Tools: []tool.Registration{{Name: "lined", Factory: func(name string, _ tool.Env) *tool.Tool {
		return NewTool(tool.Spec[lineInput]{Name: name, Description: "Take a path and a line.",
			Run: func(context.Context, *tool.Call, *lineInput) (tool.Result, error) { return tool.TextResult(""), nil }})
	}}}})
	t.Cleanup(c.Close)
	s, err := c.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		t.Fatal(err)
	}
	escaped := json.RawMessage(`{"path":"a\"b","line":10}`) // takes the full decode
	plain := json.RawMessage(`{"path":"a-b","line":10}`)    // spared by namesAny
	prepare := func(raw json.RawMessage) float64 {
		use := api.ToolUse{ID: "toolu_coerce", Name: "lined", Input: raw}
		if cs := c.prepare(s, use); cs.end != nil {
			t.Fatalf("prepare %s: %+v", raw, cs.end)
		}
		return testing.AllocsPerRun(50, func() { c.prepare(s, use) })
	}
	pass := testing.AllocsPerRun(50, func() { coerceDecoded(escaped, map[string]string{"line": "integer"}) })
	if pass == 0 {
		t.Fatal("coercion's full decode allocates nothing: the test cannot see a second pass")
	}
	extra := prepare(escaped) - prepare(plain)
	if extra >= 2*pass {
		t.Errorf("the escaped input costs prepare %v allocations more than the plain one, one coercion pass %v: coerced more than once", extra, pass)
	}
}
