package coordinator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// probeIn is the input of the test tools: which call it is, whether it may
// run beside others, whether it waits for the test to release it, and
// whether it fails.
type probeIn struct {
	Tag  string `json:"tag" validate:"required"`
	Safe bool   `json:"safe,omitempty"`
	Hold bool   `json:"hold,omitempty"`
	Fail bool   `json:"fail,omitempty"`
}

// recorder logs when probe calls start and end, and holds calls until the
// test releases them.
type recorder struct {
	mu      sync.Mutex
	log     []string // "start:<tag>" and "end:<tag>", in the order they happened
	running int
	maxRun  int
	started map[string]chan struct{}
	gates   map[string]chan struct{}
}

func newRecorder() *recorder {
	return &recorder{started: map[string]chan struct{}{}, gates: map[string]chan struct{}{}}
}

func (r *recorder) chans(tag string) (started, gate chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started[tag] == nil {
		r.started[tag] = make(chan struct{})
		r.gates[tag] = make(chan struct{})
	}
	return r.started[tag], r.gates[tag]
}

func (r *recorder) run(ctx context.Context, in *probeIn) (tool.Result, error) {
	started, gate := r.chans(in.Tag)
	r.mu.Lock()
	r.log = append(r.log, "start:"+in.Tag)
	r.running++
	r.maxRun = max(r.maxRun, r.running)
	r.mu.Unlock()
	close(started)
	if in.Hold {
		select {
		case <-gate:
		case <-ctx.Done():
		}
	}
	r.mu.Lock()
	r.log = append(r.log, "end:"+in.Tag)
	r.running--
	r.mu.Unlock()
	if in.Fail {
		return tool.Result{}, errors.New("probe " + in.Tag + " failed")
	}
	return tool.TextResult("ran " + in.Tag), nil
}

// release lets a held call finish.
func (r *recorder) release(tag string) {
	_, gate := r.chans(tag)
	close(gate)
}

// waitStarted waits, up to a generous deadline, until a call has started.
func (r *recorder) waitStarted(t *testing.T, tags ...string) {
	t.Helper()
	for _, tag := range tags {
		started, _ := r.chans(tag)
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("call %s did not start; log so far %v", tag, r.snapshot())
		}
	}
}

// hasStarted reports whether a call has started by now.
func (r *recorder) hasStarted(tag string) bool {
	started, _ := r.chans(tag)
	select {
	case <-started:
		return true
	default:
		return false
	}
}

func (r *recorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

func (r *recorder) maxRunning() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxRun
}

// probeTool builds a test tool named name whose interrupt behavior is kind.
func probeTool(name string, kind tool.InterruptBehavior, r *recorder) tool.Registration {
	return tool.Registration{Name: name, Factory: func(string, tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[probeIn]{
			Name: name, Description: "test probe",
			Run: func(ctx context.Context, _ *tool.Call, in *probeIn) (tool.Result, error) {
				return r.run(ctx, in)
			},
			ConcurrencySafe: func(in *probeIn) bool { return in.Safe },
			Interrupt:       kind,
		})
	}}
}

// newProbeCoordinator registers probe (cancel-kind), probe_block
// (block-kind) and a stand-in execute_command (cancel-kind, cascades).
func newProbeCoordinator(t testing.TB, cfg coordinator.Config) (*coordinator.Coordinator, *coordinator.Session, *recorder) {
	t.Helper()
	r := newRecorder()
	c := coordinator.New(coordinator.Options{Config: cfg, Tools: []tool.Registration{
		probeTool("probe", tool.InterruptCancel, r),
		probeTool("probe_block", tool.InterruptBlock, r),
		probeTool("execute_command", tool.InterruptCancel, r),
	}})
	t.Cleanup(c.Close)
	s, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, s, r
}

// use builds a tool_use block whose id is its tag.
func use(name, tag string, in probeIn) api.ToolUse {
	in.Tag = tag
	raw, _ := json.Marshal(in)
	return api.ToolUse{Type: api.TypeToolUse, ID: tag, Name: name, Input: raw}
}

// runAsync runs a message in the background; the channel yields its answer.
func runAsync(c *coordinator.Coordinator, s *coordinator.Session, msgID string, uses ...api.ToolUse) <-chan api.MessageResponse {
	ch := make(chan api.MessageResponse, 1)
	go func() { ch <- c.RunMessage(context.Background(), s, msgID, uses) }()
	return ch
}

func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("no answer before the deadline")
		panic("unreachable")
	}
}

// checkAnswer checks one tool_result per tool_use in block order, and the
// statuses.
func checkAnswer(t *testing.T, resp api.MessageResponse, want map[string]api.CallStatus, order ...string) {
	t.Helper()
	var got []string
	for i, res := range resp.Message.Content {
		got = append(got, res.ToolUseID)
		if resp.Calls[i].ToolUseID != res.ToolUseID {
			t.Errorf("calls[%d] is %s, content[%d] is %s", i, resp.Calls[i].ToolUseID, i, res.ToolUseID)
		}
		if st, ok := want[res.ToolUseID]; ok && resp.Calls[i].Status != st {
			t.Errorf("%s: status %s, want %s (%s)", res.ToolUseID, resp.Calls[i].Status, st, text(res))
		}
	}
	if !slices.Equal(got, order) {
		t.Errorf("results in order %v, want %v", got, order)
	}
}

func text(res api.ToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// checkEvents checks, for every call of the session log, exactly one
// tool.queued and one tool.finished, at most one tool.started, in that
// order, and that every id in ids has them.
func checkEvents(t *testing.T, s *coordinator.Session, ids ...string) {
	t.Helper()
	b := s.Events.Read(0, 1<<20)
	evs, missed := b.Events, b.Missed
	if missed > 0 {
		t.Fatalf("%d events left the log", missed)
	}
	seen := map[string][]string{}
	for _, ev := range evs {
		switch ev.Type {
		case api.EventToolQueued, api.EventToolStarted, api.EventToolFinished:
			seen[ev.ToolUseID] = append(seen[ev.ToolUseID], ev.Type)
		}
	}
	for _, id := range ids {
		got := seen[id]
		ok := slices.Equal(got, []string{api.EventToolQueued, api.EventToolStarted, api.EventToolFinished}) ||
			slices.Equal(got, []string{api.EventToolQueued, api.EventToolFinished})
		if !ok {
			t.Errorf("events of %s: %v, want queued, [started,] finished", id, got)
		}
	}
}

// checkAlone checks from the log that the unsafe call tag ran alone: every
// other call ended before it started or started after it ended.
func checkAlone(t *testing.T, log []string, tag string) {
	t.Helper()
	start, end := slices.Index(log, "start:"+tag), slices.Index(log, "end:"+tag)
	if start < 0 || end < 0 {
		t.Fatalf("%s did not run: %v", tag, log)
	}
	for i := start + 1; i < end; i++ {
		t.Errorf("%s ran beside another call: %s inside it in %v", tag, log[i], log)
	}
	running := map[string]bool{}
	for _, ev := range log[:start] {
		kind, other, _ := strings.Cut(ev, ":")
		running[other] = kind == "start"
	}
	for other, still := range running {
		if still {
			t.Errorf("%s started while %s was running: %v", tag, other, log)
		}
	}
}

func ids(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

var errInterrupted = errors.New("interrupted by the user")

// yieldBriefly lets other goroutines run between polls of a bounded loop.
func yieldBriefly() { time.Sleep(time.Millisecond) }
