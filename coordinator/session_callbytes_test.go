package coordinator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

type sizedInput struct {
	Bytes int `json:"bytes"`
}

// TestSessionKeepsResultsUpToItsBytes: a session keeps finished calls to
// answer a repeated id until their results exceed max_call_bytes; then the
// oldest are forgotten (a repeat of one runs again), and the newest call
// stays however large its result.
func TestSessionKeepsResultsUpToItsBytes(t *testing.T) {
	var runs atomic.Int32
	sized := coordinator.Registration{Name: "sized", Factory: func(name string, _ coordinator.ToolEnv) *coordinator.Tool {
		return coordinator.NewTool(coordinator.Spec[sizedInput]{Name: name, Run: func(_ context.Context, _ *coordinator.Call, in *sizedInput) (coordinator.Result, error) {
			runs.Add(1)
			return coordinator.TextResult(strings.Repeat("x", in.Bytes)), nil
		}})
	}}
	ws, err := coordinator.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	cfg := coordinator.DefaultConfig()
	cfg.MaxCallBytesPerSession = 10000
	c := coordinator.New(coordinator.Options{Workspace: ws, Config: cfg, Tools: []coordinator.Registration{sized}})
	t.Cleanup(c.Close)
	s, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	use := func(id string, bytes int) api.ToolUse {
		return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "sized", Input: json.RawMessage(fmt.Sprintf(`{"bytes":%d}`, bytes))}
	}
	// Four results of 3,000 bytes: the first no longer fits.
	for i := 1; i <= 4; i++ {
		execute(t, c, t.Context(), s, use(fmt.Sprintf("toolu_%d", i), 3000))
	}
	if s.HasCall("toolu_1") {
		t.Error("the oldest call is kept beyond max_call_bytes")
	}
	for i := 2; i <= 4; i++ {
		if !s.HasCall(fmt.Sprintf("toolu_%d", i)) {
			t.Errorf("toolu_%d forgotten within max_call_bytes", i)
		}
	}
	before := runs.Load()
	execute(t, c, t.Context(), s, use("toolu_4", 3000))
	if runs.Load() != before {
		t.Error("a kept call ran again")
	}
	execute(t, c, t.Context(), s, use("toolu_1", 3000))
	if runs.Load() != before+1 {
		t.Error("a forgotten call was not run again")
	}
	// One result above the whole bound: it alone stays.
	res, _ := execute(t, c, t.Context(), s, use("toolu_big", 20000))
	if got := len(res.Content[0].Text); got != 20000 {
		t.Fatalf("big result has %d bytes", got)
	}
	if !s.HasCall("toolu_big") || s.HasCall("toolu_4") || s.HasCall("toolu_1") {
		t.Errorf("after a result above the bound: big kept=%v, toolu_4 kept=%v, toolu_1 kept=%v",
			s.HasCall("toolu_big"), s.HasCall("toolu_4"), s.HasCall("toolu_1"))
	}
	if calls := s.Calls(""); len(calls) != 1 {
		t.Errorf("session lists %d calls, want only the big one", len(calls))
	}
}
