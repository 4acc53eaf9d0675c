package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// putPair writes a side-effecting call's two records as the coordinator
// does: its start Synced, its end Committed, each committed on the
// caller's goroutine when no commit is under way.
func putPair(t *testing.T, s *SQLite, id string) {
	t.Helper()
	c := Call{Seq: s.NextSeq(), SessionID: "ses", ToolUseID: id, Tool: "execute_command", State: "running",
		Input: []byte(`{"command":"true"}`), StartedAt: time.Now()}
	if err := s.Apply(Synced, PutCall{Call: c}); err != nil {
		t.Fatal(err)
	}
	c.State, c.Status, c.Result = "done", "succeeded", []byte(strings.Repeat("x", 1024))
	if err := s.Apply(Committed, PutCall{Call: c}); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWaitedCommitNeverCheckpoints: side-effecting calls' records, each
// committed on its caller's goroutine, write many times SQLite's
// automatic checkpoint's threshold to the log; no commit checkpoints
// (the database file is not written while the writer's own checkpoints
// are held back), and the writer asks for its checkpoints on its own
// goroutine.
func TestWaitedCommitNeverCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTemp(t, path)
	defer s.Close()
	var mu sync.Mutex
	var stacks []string
	s.w.checkpoint = func(context.Context, string) (checkpointResult, error) {
		buf := make([]byte, 64<<10)
		mu.Lock()
		stacks = append(stacks, string(buf[:runtime.Stack(buf, false)]))
		mu.Unlock()
		return checkpointResult{}, nil
	}
	before := readFile(t, path)
	for i := range 1000 { // 5-6 pages each: 5 times the threshold
		putPair(t, s, fmt.Sprintf("c%d", i))
	}
	if after := readFile(t, path); !bytes.Equal(before, after) {
		t.Errorf("the database file changed (%d bytes, then %d): a commit checkpointed", len(before), len(after))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(stacks)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint asked for after 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, st := range stacks {
		if strings.Contains(st, "(*SQLite).Apply") || !strings.Contains(st, "(*writer).loop") {
			t.Errorf("a checkpoint ran outside the writer's loop:\n%s", st)
		}
	}
}

// TestWALStaysBounded: four callers writing side-effecting calls'
// records back to back commit while every checkpoint runs, so no
// checkpoint beside them finds the log all copied and the log never
// starts again; the checkpoint that holds the commit turn once the log
// reaches walLimitFrames keeps it bounded.
func TestWALStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTemp(t, path)
	defer s.Close()
	const callers, each = 4, 1500
	var wg sync.WaitGroup
	for g := range callers {
		wg.Go(func() {
			for i := range each {
				putPair(t, s, fmt.Sprintf("g%d-%d", g, i))
			}
		})
	}
	wg.Wait()
	info, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	const frame = 4096 + 24
	if limit := int64(2*walLimitFrames) * frame; info.Size() > limit {
		t.Errorf("after %d calls' records the log is %d MB, want at most %d", callers*each, info.Size()>>20, limit>>20)
	}
}

// TestIdleWriterCheckpoints: a few records, far below the checkpoint's
// threshold, reach the database file once the writer has been idle for
// idleCheckpoint.
func TestIdleWriterCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTemp(t, path)
	defer s.Close()
	before := readFile(t, path)
	for i := range 5 {
		putPair(t, s, fmt.Sprintf("c%d", i))
	}
	deadline := time.Now().Add(10 * idleCheckpoint)
	for bytes.Equal(before, readFile(t, path)) {
		if time.Now().After(deadline) {
			t.Fatalf("the database file unchanged %v after the last commit", 10*idleCheckpoint)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCloseEmptiesTheLog: Close checkpoints and empties the log's file
// even while `toolgate audit export` has the database open beside it
// (SQLite removes the log itself only as the last connection closes).
func TestCloseEmptiesTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s := openTemp(t, path)
	export, err := Open(t.Context(), path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer export.Close()
	for i := range 50 {
		putPair(t, s, fmt.Sprintf("c%d", i))
	}
	if page, err := export.Audit(Query{Limit: 100}); err != nil || len(page.Calls) != 50 {
		t.Fatalf("the export sees %d calls (%v), want 50", len(page.Calls), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path + "-wal"); err == nil && info.Size() > 0 {
		t.Errorf("after Close the log holds %d bytes", info.Size())
	}
	if page, err := export.Audit(Query{Limit: 100}); err != nil || len(page.Calls) != 50 {
		t.Errorf("after Close the export sees %d calls (%v), want 50", len(page.Calls), err)
	}
}
