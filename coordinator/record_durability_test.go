package coordinator_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/store"
)

// durabilitySpy is a memory store that notes how durable each call row
// was asked to be.
type durabilitySpy struct {
	*store.Memory
	mu   sync.Mutex
	rows []spiedRow
}

type spiedRow struct {
	tool, state string
	d           store.Durability
}

func (s *durabilitySpy) Apply(d store.Durability, ops ...store.Op) error {
	s.mu.Lock()
	for _, o := range ops {
		if p, ok := o.(store.PutCall); ok {
			s.rows = append(s.rows, spiedRow{p.Call.Tool, p.Call.State, d})
		}
	}
	s.mu.Unlock()
	return s.Memory.Apply(d, ops...)
}

// spiedSession is a coordinator allowing everything, with the tools regs
// and a durabilitySpy for its store, and a session of it.
func spiedSession(t *testing.T, regs ...tool.Registration) (*durabilitySpy, *coordinator.Coordinator, *coordinator.Session) {
	t.Helper()
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	spy := &durabilitySpy{Memory: store.NewMemory(0)}
	cfg := coordinator.DefaultConfig()
	cfg.AllowAll = true
	c := coordinator.New(coordinator.Options{Workspace: ws, Config: cfg, Tools: regs, Store: spy})
	t.Cleanup(c.Close)
	s, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	return spy, c, s
}

// TestRecordDurability: a call with effects is on disk (Synced) before it
// runs and committed (Committed, no fsync) before it answers; a read is
// only queued. The start's fsync is what keeps a call from running twice
// after a power loss; the end needs only to survive a killed process.
func TestRecordDurability(t *testing.T) {
	type in struct{}
	reg := func(name string, writes bool) tool.Registration {
		return tool.Registration{Name: name, Factory: func(name string, _ tool.Env) *tool.Tool {
			return coordinator.NewTool(tool.Spec[in]{Name: name, Writes: writes, Run: func(context.Context, *tool.Call, *in) (tool.Result, error) {
				return tool.TextResult("done"), nil
			}})
		}}
	}
	spy, c, s := spiedSession(t, reg("effect", true), reg("look", false))
	for _, name := range []string{"effect", "look"} {
		execute(t, c, t.Context(), s, api.ToolUse{Type: api.TypeToolUse, ID: "toolu_" + name, Name: name, Input: json.RawMessage(`{}`)})
	}
	want := []spiedRow{{"effect", "running", store.Synced}, {"effect", "done", store.Committed}, {"look", "done", store.Queued}}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if len(spy.rows) != len(want) {
		t.Fatalf("rows written %+v, want %+v", spy.rows, want)
	}
	for i := range want {
		if spy.rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, spy.rows[i], want[i])
		}
	}
}

// TestReadResultNotKeptAcrossRestart: the store keeps the result of a
// call that wrote, not of one that changed nothing (only its size). After
// a restart neither runs again when its id is posted again: the write is
// answered with its result, the read with a note that its result was not
// kept.
func TestReadResultNotKeptAcrossRestart(t *testing.T) {
	type in struct{}
	var runs atomic.Int32
	reg := func(name string, writes bool) tool.Registration {
		return tool.Registration{Name: name, Factory: func(name string, _ tool.Env) *tool.Tool {
			return coordinator.NewTool(tool.Spec[in]{Name: name, Writes: writes, Run: func(context.Context, *tool.Call, *in) (tool.Result, error) {
				runs.Add(1)
				return tool.TextResult(name + " <done>"), nil
			}})
		}}
	}
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	path := filepath.Join(t.TempDir(), "state.db")
	life := func() (*coordinator.Coordinator, *store.SQLite) {
		st, err := store.Open(t.Context(), path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := coordinator.DefaultConfig()
		cfg.AllowAll = true
		c := coordinator.New(coordinator.Options{Workspace: ws, Config: cfg, Tools: []tool.Registration{reg("effect", true), reg("look", false)}, Store: st})
		if err := c.Restore(); err != nil {
			t.Fatal(err)
		}
		return c, st
	}
	uses := map[string]api.ToolUse{}
	for _, name := range []string{"effect", "look"} {
		uses[name] = api.ToolUse{Type: api.TypeToolUse, ID: "toolu_" + name, Name: name, Input: json.RawMessage(`{}`)}
	}
	c, st := life()
	s, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]api.ToolResult{}
	for name, use := range uses {
		first[name], _ = execute(t, c, t.Context(), s, use)
	}
	c.Close()
	page, err := st.Audit(store.Query{SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range page.Calls {
		size, _ := json.Marshal(first[row.Tool])
		if kept := row.Result != nil; kept != (row.Tool == "effect") || row.ResultBytes != len(size) {
			t.Errorf("%s's row keeps its result: %v, %d bytes; want kept only for effect, %d bytes", row.Tool, kept, row.ResultBytes, len(size))
		}
	}
	st.Close()

	c, st = life()
	t.Cleanup(func() { c.Close(); st.Close() })
	s, err = c.Sessions().Get(s.ID)
	if err != nil {
		t.Fatalf("session not restored: %v", err)
	}
	ran := runs.Load()
	if res, _ := execute(t, c, t.Context(), s, uses["effect"]); !reflect.DeepEqual(res, first["effect"]) {
		t.Errorf("effect after the restart = %+v, want %+v", res, first["effect"])
	}
	if res, rec := execute(t, c, t.Context(), s, uses["look"]); !res.IsError || !strings.Contains(res.Content[0].Text, "not kept") || rec.Status != api.StatusSucceeded {
		t.Errorf("look after the restart = %+v %+v, want a note that its result was not kept", rec, res)
	}
	if n := runs.Load(); n != ran {
		t.Errorf("%d calls ran again after the restart", n-ran)
	}
}

// TestReadOnlyCommandStartCommitted: a command line the shell analysis
// finds only reads has its start committed without an fsync, since
// running it again after a power loss changes nothing; one that may
// write keeps its fsync'd start. Both ends are committed before the
// answer, as for any call with effects.
func TestReadOnlyCommandStartCommitted(t *testing.T) {
	type in struct {
		Command string `json:"command"`
	}
	run := tool.Registration{Name: "run", Factory: func(name string, _ tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[in]{Name: name,
			Command: func(in *in) tool.CommandLine { return tool.CommandLine{Command: in.Command} },
			Run: func(context.Context, *tool.Call, *in) (tool.Result, error) {
				return tool.TextResult("ran"), nil
			}})
	}}
	spy, c, s := spiedSession(t, run)
	for i, line := range []string{"cat go.mod", "touch new.txt", "true"} {
		input, _ := json.Marshal(in{Command: line})
		execute(t, c, t.Context(), s, api.ToolUse{Type: api.TypeToolUse, ID: "toolu_" + strconv.Itoa(i), Name: "run", Input: input})
	}
	want := []spiedRow{
		{"run", "running", store.Committed}, {"run", "done", store.Committed},
		{"run", "running", store.Synced}, {"run", "done", store.Committed},
		{"run", "running", store.Committed}, {"run", "done", store.Committed},
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if !reflect.DeepEqual(spy.rows, want) {
		t.Fatalf("rows written %+v, want %+v", spy.rows, want)
	}
}
