package coordinator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/store"
)

type sizedInput struct {
	Bytes int `json:"bytes"`
}

// TestSessionKeepsResultsUpToItsBytes: a session keeps finished calls to
// answer a repeated id until their results exceed max_call_bytes; then the
// oldest are dropped, and the newest call stays however large its result.
// A repeat of a dropped call is not run again: without a store that keeps
// results it is answered with result_dropped; with the SQLite store, a
// call that wrote is answered with its stored result, and one that
// changed nothing (whose result the store does not keep) with a note that
// its result was not kept.
func TestSessionKeepsResultsUpToItsBytes(t *testing.T) {
	t.Run("memory store", func(t *testing.T) { testSessionKeepsResultsUpToItsBytes(t, nil, false) })
	for _, writes := range []bool{true, false} {
		t.Run(fmt.Sprintf("sqlite store, writes=%v", writes), func(t *testing.T) {
			st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			testSessionKeepsResultsUpToItsBytes(t, st, writes)
		})
	}
}

func testSessionKeepsResultsUpToItsBytes(t *testing.T, st store.Store, writes bool) {
	var runs atomic.Int32
	sized := tool.Registration{Name: "sized", Factory: func(name string, _ tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[sizedInput]{Name: name, Writes: writes, Run: func(_ context.Context, _ *tool.Call, in *sizedInput) (tool.Result, error) {
			runs.Add(1)
			return tool.TextResult(strings.Repeat("x", in.Bytes)), nil
		}})
	}}
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	cfg := coordinator.DefaultConfig()
	cfg.MaxCallBytesPerSession = 10000
	cfg.AllowAll = true
	c := coordinator.New(coordinator.Options{Workspace: ws, Config: cfg, Tools: []tool.Registration{sized}, Store: st})
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
	res, rec := execute(t, c, t.Context(), s, use("toolu_1", 3000))
	if runs.Load() != before {
		t.Error("a repeat of a dropped call ran again")
	}
	if st == nil {
		if rec.Error == nil || rec.Error.Code != api.ToolCodeResultDropped || !res.IsError {
			t.Errorf("repeat of a dropped call without a store = %+v %q, want result_dropped", rec, res.Content[0].Text)
		}
	} else if writes && (rec.Status != api.StatusSucceeded || res.Content[0].Text != strings.Repeat("x", 3000)) {
		t.Errorf("repeat of a dropped call that wrote = %+v (%d bytes), want the stored result", rec, len(res.Content[0].Text))
	} else if !writes && (rec.Status != api.StatusSucceeded || !res.IsError || !strings.Contains(res.Content[0].Text, "not kept")) {
		t.Errorf("repeat of a dropped call that changed nothing = %+v %q, want a note that its result was not kept", rec, res.Content[0].Text)
	}
	// One result above the whole bound: it alone stays.
	res, _ = execute(t, c, t.Context(), s, use("toolu_big", 20000))
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
