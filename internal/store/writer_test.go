package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGroupCommitReachesTheDatabase: writes nobody waits for are
// committed by the writer on its own (after at most the group commit's
// delay), seen by another connection with no flush asked; a durable
// write commits the queued ones with it; Close commits what is queued.
func TestGroupCommitReachesTheDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTemp(t, path)
	put := func(d Durability, id string) {
		t.Helper()
		c := Call{Seq: s.NextSeq(), SessionID: "ses", ToolUseID: id, Tool: "read_file", State: "done", Status: "succeeded", StartedAt: time.Now()}
		if err := s.Apply(d, PutCall{Call: c}); err != nil {
			t.Fatal(err)
		}
	}
	other, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	count := func() int {
		var n int
		if err := other.QueryRow(`SELECT count(*) FROM calls`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	for i := range 3 {
		put(Queued, fmt.Sprintf("r%d", i))
	}
	deadline := time.Now().Add(10 * time.Second)
	for count() != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 3 queued writes committed after 10 s", count())
		}
		time.Sleep(5 * time.Millisecond)
	}

	put(Queued, "r3")
	put(Synced, "w1") // commits r3 with it, before it returns
	if n := count(); n != 5 {
		t.Errorf("after a durable write, %d rows, want 5", n)
	}

	for i := range maxPending + 10 { // past the queue's bound: the last ones wait
		put(Queued, fmt.Sprintf("q%d", i))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 5+maxPending+10 {
		t.Errorf("after Close, %d rows, want %d", n, 5+maxPending+10)
	}
	if err := s.Apply(Queued, PutCall{}); err != ErrClosed {
		t.Errorf("Apply after Close = %v, want ErrClosed", err)
	}
}

// TestAuditSeesQueuedWrites: a record nobody waited for may still be in
// the writer's queue (it gathers for commitDelay); the audit log and
// Prune wait for it to commit, so a call answered is a call listed.
func TestAuditSeesQueuedWrites(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "state.db"))
	defer s.Close()
	c := Call{Seq: s.NextSeq(), SessionID: "ses", ToolUseID: "r1", Tool: "read_file", State: "done", Status: "succeeded", StartedAt: time.Now()}
	if err := s.Apply(Queued, PutCall{Call: c}); err != nil {
		t.Fatal(err)
	}
	page, err := s.Audit(Query{SessionID: "ses"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Calls) != 1 || page.Calls[0].ToolUseID != "r1" {
		t.Fatalf("audit right after a queued write lists %+v, want r1", page.Calls)
	}
	if err := s.Apply(Queued, PutCall{Call: Call{Seq: s.NextSeq(), SessionID: "ses", ToolUseID: "r2", Tool: "read_file", State: "done", StartedAt: time.Now().Add(-time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Prune(time.Now().Add(-time.Minute)); err != nil || n != 1 {
		t.Errorf("Prune right after a queued write of an old call = %d, %v; want 1", n, err)
	}
}

// TestDurabilityLevels: a Committed write returns once committed
// (another connection sees it, and the queued write before it), without
// an fsync; a Synced write fsyncs the write-ahead log after its commit,
// before it returns.
func TestDurabilityLevels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTemp(t, path)
	defer s.Close()
	other, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	count := func() (rows int) {
		if err := other.QueryRow(`SELECT count(*) FROM calls`).Scan(&rows); err != nil {
			t.Error(err)
		}
		return rows
	}
	var synced []int // the rows committed at each fsync
	s.w.sync = func(f *os.File) error {
		if f.Name() != path+"-wal" {
			t.Errorf("fsync'd %s, want the log %s-wal", f.Name(), path)
		}
		synced = append(synced, count())
		return f.Sync()
	}
	put := func(d Durability, id string) (rows int, syncs []int) {
		t.Helper()
		c := Call{Seq: s.NextSeq(), SessionID: "ses", ToolUseID: id, Tool: "write_to_file", State: "done", Status: "succeeded", StartedAt: time.Now()}
		if err := s.Apply(d, PutCall{Call: c}); err != nil {
			t.Fatal(err)
		}
		return count(), synced
	}
	put(Queued, "q1")
	if rows, syncs := put(Committed, "c1"); rows != 2 || len(syncs) != 0 {
		t.Errorf("after a Committed write: %d rows, fsyncs at %v rows; want 2 and none", rows, syncs)
	}
	if rows, syncs := put(Synced, "s1"); rows != 3 || !slices.Equal(syncs, []int{3}) {
		t.Errorf("after a Synced write: %d rows, fsyncs at %v rows; want 3 and one at 3", rows, syncs)
	}
	if rows, syncs := put(Committed, "c2"); rows != 4 || len(syncs) != 1 {
		t.Errorf("after a second Committed write: %d rows, fsyncs at %v rows; want 4 and still one", rows, syncs)
	}
}

// TestWaitedWriteCommitsOnItsCaller: a write that waits, with no commit
// under way, commits on its caller's goroutine (the fsync of a Synced one
// is on the caller's stack), not handed to the writer's goroutine and
// back; writes from many goroutines at once, waited for or not, all
// commit, and a later write of a row wins over an earlier one.
func TestWaitedWriteCommitsOnItsCaller(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTemp(t, path)
	defer s.Close()
	var stack []byte
	s.w.sync = func(f *os.File) error {
		stack = make([]byte, 64<<10)
		stack = stack[:runtime.Stack(stack, false)]
		return f.Sync()
	}
	put := func(d Durability, seq int64, id, status string) error {
		c := Call{Seq: seq, SessionID: "ses", ToolUseID: id, Tool: "write_to_file", State: "done", Status: status, StartedAt: time.Now()}
		return s.Apply(d, PutCall{Call: c})
	}
	if err := put(Synced, s.NextSeq(), "s0", "succeeded"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(stack), "(*SQLite).Apply") {
		t.Errorf("a Synced write was fsync'd on another goroutine:\n%s", stack)
	}

	const writers, each = 8, 50
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				seq, id := s.NextSeq(), fmt.Sprintf("g%d-%d", g, i)
				if err := put(Queued, seq, id, "first"); err != nil {
					t.Error(err)
				}
				if err := put(Durability(i%3), seq, id, "last"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	var n, last int
	if err := s.db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE status = 'last') FROM calls WHERE tool_use_id LIKE 'g%'`).Scan(&n, &last); err != nil {
		t.Fatal(err)
	}
	if n != writers*each || last != n {
		t.Errorf("%d rows, %d of them with their last write; want %d and all", n, last, writers*each)
	}
}
