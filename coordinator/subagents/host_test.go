package subagents

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// fakeHost stands in for the coordinator: it records the child sessions
// started and ended, and runs the runner unconfined in dir.
type fakeHost struct {
	dir     string
	mu      sync.Mutex
	perms   []api.Permissions
	ended   int
	tokenOK bool // whether the runner's token admitted it while it ran
}

func (h *fakeHost) ToolNames() []string {
	return []string{"read_file", "write_to_file", "execute_command"}
}

func (h *fakeHost) StartChild(perms api.Permissions) (string, func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.perms = append(h.perms, perms)
	return "child1", func() { h.mu.Lock(); h.ended++; h.mu.Unlock() }, nil
}

func (h *fakeHost) Confine() (*sandbox.Sandbox, sandbox.Run, error) {
	return nil, sandbox.Run{Dir: h.dir}, nil
}

// TestRunThroughHost: an agent's tool runs its runner in a child session
// the Host starts under the agent's rules (its tools allowed, every other
// tool and every subagent denied), admits the runner with a token for
// that session only, and ends both when the run ends.
func TestRunThroughHost(t *testing.T) {
	agents := t.TempDir()
	if err := os.WriteFile(filepath.Join(agents, "reader.md"), []byte("---\nname: reader\ndescription: reads\ntools: read_file\n---\nRead.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host := &fakeHost{dir: t.TempDir()}
	src := New(host, Config{Dir: agents, Command: `echo "$TOOLGATE_TOKEN"; cat`})
	t.Cleanup(src.Close)
	tl := src.Tool(tool.SubagentPrefix+"reader", tool.Env{})
	if tl == nil {
		t.Fatalf("no tool %sreader among %v", tool.SubagentPrefix, src.Names())
	}
	call := &tool.Call{ToolUseID: "toolu_1", Name: tl.Name}
	var out strings.Builder
	var token string
	call.Attach(tool.Runtime{Host: tool.HostFuncs{OnOutput: func(_, chunk string) {
		out.WriteString(chunk)
		if line, _, ok := strings.Cut(out.String(), "\n"); ok && token == "" {
			// The run is under way: its token admits to the child only.
			token = line
			sid, ok := src.ScopedSession(token)
			host.tokenOK = ok && sid == "child1"
		}
	}}})
	res, err := tl.Run(context.Background(), call, &subagentIn{Prompt: "the task"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.LastText(); got != token+"\nthe task" {
		t.Errorf("answer = %q, want the runner's stdout", got)
	}
	if _, ok := src.ScopedSession(token); ok {
		t.Error("the runner's token still admits after the run")
	}
	host.mu.Lock()
	defer host.mu.Unlock()
	if len(host.perms) != 1 || host.ended != 1 {
		t.Fatalf("children started %d, ended %d; want one of each", len(host.perms), host.ended)
	}
	p := host.perms[0]
	if !slices.Equal(p.Allow, []string{"read_file"}) || !slices.Contains(p.Deny, "write_to_file") ||
		!slices.Contains(p.Deny, UseSubagents) || !slices.Contains(p.Deny, tool.SubagentPrefix+"*") || slices.Contains(p.Deny, "read_file") {
		t.Errorf("child rules = %+v, want read_file allowed and the rest, subagents included, denied", p)
	}
	if !host.tokenOK {
		t.Error("the runner's token did not admit it to its child session while it ran")
	}
}
