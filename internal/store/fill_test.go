package store

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestFillDoneByTheStore: a row's Fill is done by the store, once: the
// memory store does it as it keeps the row, the SQLite store as its
// writer writes it, so that a queued row's Apply returns without it (a
// Fill that has not returned holds back no caller); both answer the
// fields it filled.
func TestFillDoneByTheStore(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) Store{
		"memory": func(*testing.T) Store { return NewMemory(0) },
		"sqlite": func(t *testing.T) Store { return openTemp(t, filepath.Join(t.TempDir(), "state.db")) },
	} {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			_, memory := s.(*Memory)
			var fills atomic.Int32
			release := make(chan struct{})
			if memory {
				close(release)
			}
			c := Call{Seq: s.NextSeq(), SessionID: "ses_1", ToolUseID: "t1", Tool: "read_file", Input: []byte(`{}`), InputBytes: 2,
				State: "done", Status: "succeeded", StartedAt: time.Now().UTC(), Fill: func(c *Call) {
					<-release
					fills.Add(1)
					c.InputSHA256, c.ResultBytes = "abc", 42
				}}
			applied := make(chan error, 1)
			go func() { applied <- s.Apply(Queued, PutCall{Call: c}) }()
			select {
			case err := <-applied:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Apply waited for the row's Fill")
			}
			if got := fills.Load(); memory && got != 1 {
				t.Errorf("the memory store did the Fill %d times as it kept the row, want once", got)
			}
			if !memory {
				close(release)
			}
			for range 2 {
				page, err := s.Audit(Query{})
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Calls) != 1 {
					t.Fatalf("audit has %d calls, want 1", len(page.Calls))
				}
				if got := page.Calls[0]; got.InputSHA256 != "abc" || got.ResultBytes != 42 || got.Fill != nil {
					t.Errorf("audit answers hash %q and %d bytes (fill=%v), want abc and 42", got.InputSHA256, got.ResultBytes, got.Fill != nil)
				}
			}
			if got := fills.Load(); got != 1 {
				t.Errorf("the Fill was done %d times, want once", got)
			}
		})
	}
}
