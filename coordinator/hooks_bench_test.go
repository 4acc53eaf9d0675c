package coordinator

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// BenchmarkHookOverhead compares a read_file call without hooks, with a
// command hook that exits 0 and with one that prints a JSON decision: the
// cost of a command hook is mostly starting bash.
func BenchmarkHookOverhead(b *testing.B) {
	cases := []struct {
		name  string
		hooks hooks.Config
	}{
		{"none", hooks.Config{}},
		{"exit0", pre("*", command("exit 0"))},
		{"json", pre("*", command(`echo '{"permissionDecision":"allow","additionalContext":"ok"}'`))},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			ws, err := tool.OpenWorkspace(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			c := New(Options{Config: Config{AgentConfig: AgentConfig{Hooks: bc.hooks, LoopGuardRepeats: -1}}, Workspace: ws, Tools: policyTools(&ran{})})
			defer c.Close()
			s, _ := c.Sessions().Create(api.ModeAct, api.Permissions{})
			i := 0
			for b.Loop() {
				i++
				c.Execute(context.Background(), s, "", use(fmt.Sprint("b", i), "read_file", map[string]any{"path": "a.txt"}))
			}
		})
	}
}
