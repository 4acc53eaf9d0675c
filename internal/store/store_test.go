package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openTemp(t *testing.T, path string) *SQLite {
	t.Helper()
	s, err := Open(t.Context(), path, Options{OnError: func(err error) { t.Errorf("write failed: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSQLiteKeepsAcrossReopen writes every kind of row, closes, reopens
// and reads them back; a second open while the first holds the lock is
// refused.
func TestSQLiteKeepsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "state.db")
	s := openTemp(t, path)
	if f, err := lockFile(path+".lock", 0); err == nil {
		f.Close()
		t.Fatalf("a second lock on an open store was granted")
	}
	now := time.Now().UTC()
	seq := s.NextSeq()
	ops := []Op{
		PutSession{Session{ID: "ses_1", Mode: "plan", Dialect: "cline", Rules: json.RawMessage(`{"allow":["read_file"]}`), CreatedAt: now, UpdatedAt: now}},
		PutSession{Session{ID: "ses_gone", Mode: "act", CreatedAt: now, UpdatedAt: now}},
		PutCall{Call{Seq: seq, SessionID: "ses_1", ToolUseID: "t1", Tool: "write_to_file", Input: json.RawMessage(`{"path":"a"}`),
			State: "done", Status: "succeeded", Decision: "approved", DecidedBy: "token", StartedAt: now, Result: json.RawMessage(`{"x":1}`), ResultBytes: 7}},
		PutCall{Call{Seq: s.NextSeq(), SessionID: "ses_1", ToolUseID: "t2", Tool: "execute_command", State: "awaiting_approval", StartedAt: now}},
		PutEdit{Edit{SessionID: "ses_1", ToolUseID: "t1", Path: "a", Existed: true, Content: []byte("old"), AfterSize: 3, AfterModTime: now, AfterHash: []byte{1, 2}, CreatedAt: now}},
		PutEdit{Edit{SessionID: "ses_gone", ToolUseID: "g1", Path: "b", CreatedAt: now}},
		DeleteSession{ID: "ses_gone"},
	}
	if err := s.Apply(Synced, ops...); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", filepath.Dir(path)} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v: others may read the calls it holds", p, perm)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTemp(t, path)
	defer s.Close()
	if err := s.CheckIntegrity(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := s.NextSeq(); got != seq+2 {
		t.Errorf("NextSeq after reopen = %d, want %d", got, seq+2)
	}
	sessions, _ := s.Sessions()
	if len(sessions) != 1 || sessions[0].ID != "ses_1" || sessions[0].Dialect != "cline" || string(sessions[0].Rules) != `{"allow":["read_file"]}` {
		t.Errorf("sessions = %+v", sessions)
	}
	edits, _ := s.Edits()
	if len(edits) != 1 || string(edits[0].Content) != "old" || !edits[0].AfterModTime.Equal(now) {
		t.Errorf("edits = %+v", edits)
	}
	c, ok, err := s.FindCall("ses_1", "t1")
	if err != nil || !ok || c.Status != "succeeded" || c.DecidedBy != "token" || string(c.Result) != `{"x":1}` {
		t.Errorf("FindCall = %+v %v %v", c, ok, err)
	}
	un, _ := s.Unfinished()
	if len(un) != 1 || un[0].ToolUseID != "t2" {
		t.Errorf("unfinished = %+v", un)
	}
	if err := s.Apply(Synced, DiscardCalls{SessionID: "ses_1", ToolUseIDs: []string{"t1"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.FindCall("ses_1", "t1"); ok {
		t.Error("a discarded call is still found")
	}
}

// TestAuditPagesAndFilters runs the same audit queries against both
// implementations.
func TestAuditPagesAndFilters(t *testing.T) {
	for name, s := range map[string]Store{
		"sqlite": openTemp(t, filepath.Join(t.TempDir(), "state.db")),
		"memory": NewMemory(0),
	} {
		t.Run(name, func(t *testing.T) {
			defer s.Close()
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			// Written in an order other than their seqs, as calls that
			// run side by side end: the log still lists them by seq.
			seqs := make([]int64, 25)
			for i := range seqs {
				seqs[i] = s.NextSeq()
			}
			for _, i := range rand.Perm(25) {
				tool, status := "read_file", "succeeded"
				if i%5 == 0 {
					tool, status = "execute_command", "failed"
				}
				err := s.Apply(Queued, PutCall{Call{Seq: seqs[i], SessionID: fmt.Sprintf("ses_%d", i%2), ToolUseID: fmt.Sprintf("t%02d", i),
					Tool: tool, State: "done", Status: status, StartedAt: base.Add(time.Duration(i) * time.Minute)}})
				if err != nil {
					t.Fatal(err)
				}
			}
			// The last write durable: every earlier one is then visible too.
			if err := s.Apply(Synced); err != nil {
				t.Fatal(err)
			}
			var ids []string
			q := Query{Limit: 10}
			for pages := 0; ; pages++ {
				p, err := s.Audit(q)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range p.Calls {
					ids = append(ids, c.ToolUseID)
				}
				if p.Next == 0 {
					if pages != 2 {
						t.Errorf("%d pages, want 3", pages+1)
					}
					break
				}
				q.Before = p.Next
			}
			if len(ids) != 25 || ids[0] != "t24" || ids[24] != "t00" {
				t.Errorf("paged ids = %v, want t24 .. t00", ids)
			}
			tests := []struct {
				name string
				q    Query
				want string
			}{
				{"tool", Query{Tool: "execute_command"}, "t20 t15 t10 t05 t00"},
				{"status and session", Query{Status: "failed", SessionID: "ses_1"}, "t15 t05"},
				{"time window", Query{Since: base.Add(3 * time.Minute), Until: base.Add(6 * time.Minute)}, "t05 t04 t03"},
			}
			for _, tt := range tests {
				p, err := s.Audit(tt.q)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, c := range p.Calls {
					got = append(got, c.ToolUseID)
				}
				if strings.Join(got, " ") != tt.want {
					t.Errorf("%s: got %v, want %s", tt.name, got, tt.want)
				}
			}
			if n, err := s.Prune(base.Add(10 * time.Minute)); err != nil || n != 10 {
				t.Errorf("Prune = %d, %v; want 10", n, err)
			}
			if p, _ := s.Audit(Query{Limit: 100}); len(p.Calls) != 15 {
				t.Errorf("%d calls after prune, want 15", len(p.Calls))
			}
		})
	}
}

// TestMigrationsRefuseNewerSchema checks that a database from a newer
// toolgate is not opened (its rows could be misread).
func TestMigrationsRefuseNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTemp(t, path)
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(context.Background(), path, Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("open: got %v, want a newer-schema refusal", err)
	}
}
