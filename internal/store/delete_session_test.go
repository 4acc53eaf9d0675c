package store

import (
	"path/filepath"
	"testing"
	"time"
)

// TestDeletedSessionsCallsAreDiscarded: deleting a session discards its
// stored calls (the audit log keeps them), and a call of the session
// that ends after the delete stays discarded, in both stores: a later
// session of the same id must not find them.
func TestDeletedSessionsCallsAreDiscarded(t *testing.T) {
	for name, st := range map[string]Store{
		"memory": NewMemory(100),
		"sqlite": openTemp(t, filepath.Join(t.TempDir(), "state.db")),
	} {
		t.Run(name, func(t *testing.T) {
			defer st.Close()
			now := time.Now().UTC()
			done, running := st.NextSeq(), st.NextSeq()
			err := st.Apply(Synced,
				PutSession{Session{ID: "s", Mode: "act", CreatedAt: now, UpdatedAt: now}},
				PutCall{Call{Seq: done, SessionID: "s", ToolUseID: "t1", Tool: "read_file", State: "done", StartedAt: now}},
				PutCall{Call{Seq: running, SessionID: "s", ToolUseID: "t2", Tool: "execute_command", State: "running", StartedAt: now}},
				DeleteSession{ID: "s"},
				// The running call ends after the delete.
				PutCall{Call{Seq: running, SessionID: "s", ToolUseID: "t2", Tool: "execute_command", State: "done", StartedAt: now}})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"t1", "t2"} {
				if c, ok, err := st.FindCall("s", id); ok || err != nil {
					t.Errorf("FindCall(s, %s) = %+v, %v, %v; want nothing", id, c, ok, err)
				}
			}
			if ids, err := st.CallIDs(); err != nil || len(ids["s"]) != 0 {
				t.Errorf("CallIDs = %v, %v; want none for the deleted session", ids, err)
			}
			page, err := st.Audit(Query{SessionID: "s"})
			if err != nil || len(page.Calls) != 2 {
				t.Fatalf("audit = %+v, %v; want both calls kept", page.Calls, err)
			}
			for _, c := range page.Calls {
				if !c.Discarded {
					t.Errorf("audit row %s not marked discarded", c.ToolUseID)
				}
			}
		})
	}
}
