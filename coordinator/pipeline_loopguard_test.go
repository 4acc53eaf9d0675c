package coordinator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

func TestLoopGuard(t *testing.T) {
	const warning = "Tool [read_file] has been called"
	read := func(id, path string) api.ToolUse {
		return use(id, "read_file", map[string]any{"path": path, "content": ""})
	}
	steps := []struct {
		name string
		use  api.ToolUse
		warn bool
	}{
		{"first call", read("l1", "a.txt"), false},
		{"second identical call", read("l2", "a.txt"), false},
		{"third identical call warns", read("l3", "a.txt"), true},
		{"reordered keys are the same input", api.ToolUse{Type: api.TypeToolUse, ID: "l4", Name: "read_file",
			Input: json.RawMessage(`{"path":"a.txt", "content":""}`)}, true},
		{"another input starts over", read("l5", "b.txt"), false},
		{"one repeat is not a loop", read("l6", "b.txt"), false},
	}
	p := newTestPolicy(t, Config{}, nil)
	s := p.session(t, api.Permissions{})
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res, _ := run(t, p, s, st.use)
			if got := strings.Contains(resultText(res), warning); got != st.warn {
				t.Errorf("warning = %v, want %v; result %q", got, st.warn, resultText(res))
			}
		})
	}
	t.Run("a negative count turns the guard off", func(t *testing.T) {
		p := newTestPolicy(t, Config{AgentConfig: AgentConfig{LoopGuardRepeats: -1}}, nil)
		s := p.session(t, api.Permissions{})
		for i, id := range []string{"o1", "o2", "o3", "o4"} {
			res, _ := run(t, p, s, read(id, "a.txt"))
			if strings.Contains(resultText(res), warning) {
				t.Fatalf("call %d warned with the guard off", i+1)
			}
		}
	})
}
