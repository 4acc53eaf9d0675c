package coordinator_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

type gateInput struct {
	Name string `json:"name"`
}

// gateTool counts its runs and blocks each until release is closed.
type gateTool struct {
	runs    atomic.Int32
	started chan struct{}
	release chan struct{}
}

func newGate() *gateTool {
	return &gateTool{started: make(chan struct{}, 16), release: make(chan struct{})}
}

func (g *gateTool) registration() tool.Registration {
	return tool.Registration{Name: "gate", Factory: func(name string, _ tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[gateInput]{Name: name, Run: func(ctx context.Context, call *tool.Call, in *gateInput) (tool.Result, error) {
			n := g.runs.Add(1)
			g.started <- struct{}{}
			select {
			case <-g.release:
			case <-ctx.Done():
			}
			return tool.TextResult("run " + string(rune('0'+n))), nil
		}})
	}}
}

func newGateCoordinator(t *testing.T, g *gateTool, extra ...tool.Registration) (*coordinator.Coordinator, *coordinator.Session) {
	t.Helper()
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	c := coordinator.New(coordinator.Options{Workspace: ws, Tools: append([]tool.Registration{g.registration()}, extra...)})
	t.Cleanup(c.Close)
	s, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

// execute runs one call and waits for its answer with a deadline: a call
// that never answers fails its test in seconds instead of hanging the
// suite (the call's own context is the session's, not ctx, so ctx alone
// cannot bound it).
func execute(t *testing.T, c *coordinator.Coordinator, ctx context.Context, s *coordinator.Session, use api.ToolUse) (api.ToolResult, api.CallRecord) {
	t.Helper()
	type answer struct {
		res api.ToolResult
		rec api.CallRecord
	}
	ch := make(chan answer, 1)
	go func() { r, rec := c.Execute(ctx, s, "", use); ch <- answer{r, rec} }()
	a := receive(t, ch)
	return a.res, a.rec
}

var gateUse = api.ToolUse{Type: api.TypeToolUse, ID: "toolu_same", Name: "gate", Input: json.RawMessage(`{}`)}

func TestRepost(t *testing.T) {
	t.Run("running id waits for the first run's result", func(t *testing.T) {
		g := newGate()
		c, s := newGateCoordinator(t, g)
		type answer struct {
			res api.ToolResult
			rec api.CallRecord
		}
		first, second := make(chan answer, 1), make(chan answer, 1)
		go func() { r, rec := c.Execute(t.Context(), s, "", gateUse); first <- answer{r, rec} }()
		receive(t, g.started)
		go func() { r, rec := c.Execute(t.Context(), s, "", gateUse); second <- answer{r, rec} }()
		// The re-post must be waiting, not answered, while the call runs.
		waitState(t, s, gateUse.ID, api.StateRunning)
		select {
		case a := <-second:
			t.Fatalf("re-post answered %q while the call was running", a.res.Content[0].Text)
		default:
		}
		close(g.release)
		a, b := receive(t, first), receive(t, second)
		if a.res.Content[0].Text != "run 1" || b.res.Content[0].Text != "run 1" {
			t.Errorf("results %q and %q, want both %q", a.res.Content[0].Text, b.res.Content[0].Text, "run 1")
		}
		if b.rec.Status != api.StatusSucceeded || b.rec.State != api.StateDone {
			t.Errorf("re-post record %+v, want done succeeded", b.rec)
		}
		if n := g.runs.Load(); n != 1 {
			t.Errorf("tool ran %d times, want 1", n)
		}
	})
	t.Run("finished id answers with its result", func(t *testing.T) {
		g := newGate()
		close(g.release)
		c, s := newGateCoordinator(t, g)
		r1, _ := execute(t, c, t.Context(), s, gateUse)
		r2, rec := execute(t, c, t.Context(), s, gateUse)
		resp := receive(t, runAsync(c, s, "msg_2", gateUse))
		if r1.Content[0].Text != "run 1" || r2.Content[0].Text != "run 1" || resp.Message.Content[0].Content[0].Text != "run 1" {
			t.Errorf("results %q, %q, %q, want all %q", r1.Content[0].Text, r2.Content[0].Text, resp.Message.Content[0].Content[0].Text, "run 1")
		}
		if rec.Status != api.StatusSucceeded {
			t.Errorf("status %s", rec.Status)
		}
		if n := g.runs.Load(); n != 1 {
			t.Errorf("tool ran %d times, want 1", n)
		}
	})
	t.Run("a waiter that gives up does not stop the call", func(t *testing.T) {
		g := newGate()
		c, s := newGateCoordinator(t, g)
		done := make(chan struct{})
		go func() { c.Execute(t.Context(), s, "", gateUse); close(done) }()
		receive(t, g.started)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		res, rec := execute(t, c, ctx, s, gateUse)
		if rec.State != api.StateRunning || !res.IsError {
			t.Errorf("gave-up waiter got state %s is_error %v, want running true", rec.State, res.IsError)
		}
		close(g.release)
		receive(t, done)
		if _, res, _ := s.Call(gateUse.ID); res == nil || res.Content[0].Text != "run 1" {
			t.Errorf("call result %+v, want run 1", res)
		}
	})
}

// waitState polls a call's state until it is want, with a deadline.
func waitState(t *testing.T, s *coordinator.Session, id string, want api.CallState) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if rec, _, ok := s.Call(id); ok && rec.State == want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("call %s never reached state %s", id, want)
}

// memOutput is a KeptOutput that records its removal.
type memOutput struct {
	text    string
	removed atomic.Bool
}

func (m *memOutput) Open() (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader(m.text)), nil
}
func (m *memOutput) Size() int64   { return int64(len(m.text)) }
func (m *memOutput) Remove() error { m.removed.Store(true); return nil }

func TestKeptOutput(t *testing.T) {
	var kept []*memOutput
	keeper := tool.Registration{Name: "keeper", Factory: func(name string, _ tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[gateInput]{Name: name, Run: func(_ context.Context, call *tool.Call, in *gateInput) (tool.Result, error) {
			o := &memOutput{text: "full " + in.Name}
			kept = append(kept, o)
			call.KeepOutput(o)
			return tool.TextResult("short"), nil
		}})
	}}
	g := newGate()
	c, s := newGateCoordinator(t, g, keeper)
	use := func(id string) api.ToolUse {
		return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "keeper", Input: json.RawMessage(`{"name":"` + id + `"}`)}
	}
	execute(t, c, t.Context(), s, use("a"))
	t.Run("fetched after the call", func(t *testing.T) {
		o, state, found := s.Output("a")
		if !found || state != api.StateDone || o == nil {
			t.Fatalf("Output: %v %s %v", o, state, found)
		}
		rc, _ := o.Open()
		b, _ := io.ReadAll(rc)
		if string(b) != "full a" {
			t.Errorf("output %q, want %q", b, "full a")
		}
	})
	t.Run("removed when the session ends", func(t *testing.T) {
		if err := c.Sessions().Delete(s.ID); err != nil {
			t.Fatal(err)
		}
		if !kept[0].removed.Load() {
			t.Errorf("kept output not removed when its session was deleted")
		}
	})
}
