package store

import (
	"encoding/json"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestResultLaterEncodedWhenNeeded: the memory store keeps a call's
// ResultLater and encodes it only when the audit log is read; the SQLite
// store encodes it when it writes the call. Both answer the same result.
func TestResultLaterEncodedWhenNeeded(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) Store{
		"memory": func(*testing.T) Store { return NewMemory(0) },
		"sqlite": func(t *testing.T) Store { return openTemp(t, filepath.Join(t.TempDir(), "state.db")) },
	} {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			var encoded atomic.Int32
			later := func() (json.RawMessage, int) {
				encoded.Add(1)
				return json.RawMessage(`{"type":"tool_result","content":[]}`), 42
			}
			c := Call{Seq: s.NextSeq(), SessionID: "ses_1", ToolUseID: "t1", Tool: "read_file", State: "done",
				Status: "succeeded", StartedAt: time.Now().UTC(), ResultLater: later}
			if err := s.Apply(Synced, PutCall{Call: c}); err != nil {
				t.Fatal(err)
			}
			if _, ok := s.(*Memory); ok && encoded.Load() != 0 {
				t.Errorf("the memory store encoded the result on write")
			}
			page, err := s.Audit(Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Calls) != 1 {
				t.Fatalf("audit has %d calls, want 1", len(page.Calls))
			}
			got := page.Calls[0]
			if string(got.Result) != `{"type":"tool_result","content":[]}` || got.ResultBytes != 42 || got.ResultLater != nil {
				t.Errorf("audit answers result %s (%d bytes), later=%v", got.Result, got.ResultBytes, got.ResultLater != nil)
			}
		})
	}
}

// TestMemoryKeepsCallsUpToItsBytes: the memory store forgets its oldest
// calls once those it keeps hold more than its byte bound, counting what
// a ResultLater holds; the newest call stays however large.
func TestMemoryKeepsCallsUpToItsBytes(t *testing.T) {
	m := NewMemory(0)
	m.maxBytes = 10000
	put := func(id string, held int) {
		t.Helper()
		c := Call{Seq: m.NextSeq(), SessionID: "ses_1", ToolUseID: id, Tool: "read_file", State: "done", StartedAt: time.Now().UTC(),
			ResultLater: func() (json.RawMessage, int) { return json.RawMessage(`{}`), 2 }, LaterBytes: held}
		if err := m.Apply(Queued, PutCall{Call: c}); err != nil {
			t.Fatal(err)
		}
	}
	kept := func() []string {
		t.Helper()
		page, err := m.Audit(Query{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range page.Calls {
			ids = append(ids, c.ToolUseID)
		}
		return ids
	}
	for _, id := range []string{"t1", "t2", "t3", "t4"} {
		put(id, 3000)
	}
	if got := kept(); len(got) != 3 || got[0] != "t4" || got[2] != "t2" {
		t.Errorf("kept %v, want [t4 t3 t2]", got)
	}
	put("big", 50000)
	if got := kept(); len(got) != 1 || got[0] != "big" {
		t.Errorf("after a call above the bound, kept %v, want [big]", got)
	}
	if m.bytes != heldBytes(&Call{ToolUseID: "big", SessionID: "ses_1", LaterBytes: 50000}) {
		t.Errorf("counted %d bytes for the one call kept", m.bytes)
	}
}
