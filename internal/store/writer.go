package store

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/toolgate/toolgate/internal/procs"
	"os"
	"sync"
	"time"
)

// writer commits the store's writes, one batch at a time on one
// connection: every request queued while the previous batch committed
// commits with the next, so a busy server pays one commit (and at most
// one fsync) for many calls, and no request waits on SQLite unless it
// asked to be Committed or Synced. Its goroutine commits what nobody
// waits for; a request that waits and finds no commit under way commits
// the queue itself (queue).
//
// A batch nobody waits for (the records of reads, Queued) is a group
// commit: the writer lets it gather for up to commitDelay, and commits it
// with synchronous=NORMAL, without an fsync. Its rows are in the
// operating system's hands when the commit returns; until then they are
// in this process's queue, so a killed toolgate may lose the last
// commitDelay of them, and a power loss the last of them, never reorder
// them (the write-ahead log is replayed in order up to its first torn
// frame). A batch with a Committed request commits at once, NORMAL too: a
// killed process loses nothing it returned. A batch with a Synced
// request commits at once the same way, then fsyncs the write-ahead log,
// which also covers every earlier commit. Queuing takes a lock and an
// append; only the first request of a batch, or one that is waited for
// while a commit is under way, wakes the writer's goroutine. All of this
// exists for speed: BenchmarkCallRecord (./internal/store/) defends it,
// BenchmarkDirectCommit the commit by a waiting write. The loop also runs
// the checkpoints, between batches and never inside a commit
// (checkpoint.go, BenchmarkCheckpointTail).
type writer struct {
	conn   *sql.Conn // the writer's own connection, its statements prepared once
	upsert *sql.Stmt // upsertCall on conn
	// BEGIN and COMMIT, prepared once.
	begin, end *sql.Stmt
	// walPath is the write-ahead log's file, wal its descriptor once a
	// Synced batch has asked for it, and sync what makes it durable
	// ((*os.File).Sync; the tests watch it). The connection stays at
	// synchronous=NORMAL and a Synced batch fsyncs the log itself after
	// its commit: what synchronous=FULL would do at that commit, without
	// switching the setting there and back around each side-effecting
	// call (a pragma runs once and is compiled again at its next use:
	// BenchmarkSyncedCommit, ./internal/store/). The log stays the same
	// file while the writer's connection is open: SQLite removes it only
	// when the last connection closes.
	walPath string
	wal     *os.File
	sync    func(*os.File) error
	onError func(error)
	kick    chan struct{} // wakes the loop; one pending wake is enough
	done    chan struct{}

	// ckpt runs the loop's checkpoints (checkpoint.go), checkpoint is
	// its method (the tests watch it).
	ckpt       checkpointer
	checkpoint func(ctx context.Context, mode string) (checkpointResult, error)

	// handOff makes a waited write go through the loop like the others,
	// as before it could commit itself: for BenchmarkDirectCommit.
	handOff bool

	mu       sync.Mutex
	pending  []request
	spare    []request // the last batch's slice, emptied, for the next
	waited   int       // requests in pending that someone waits for
	durables int       // of those, the ones that must be on disk
	busy     bool      // a batch is being committed, by the loop or a waiting write
	turnFree sync.Cond // signalled when busy goes false: a checkpoint waits for its turn
	closed   bool
	// frames is how many pages the commits wrote to the log since the
	// last checkpoint began, commits how many commits there have been
	// (the idle checkpoint's timer looks for new ones), and copied
	// whether the last checkpoint left every frame of the log in the
	// database file.
	frames  int
	commits int
	copied  bool
}

type request struct {
	ops  []Op
	done chan error // nil when nobody waits
}

// maxBatch is the batch size that commits without waiting for more, and
// maxPending the queue length from which a write waits for its commit
// (the writer is behind: the queue must not grow without bound).
const (
	maxBatch   = 512
	maxPending = 4096
)

// commitDelay is how long a batch nobody waits for gathers more before
// it commits: a sequential caller's reads, one every few hundred
// microseconds, then share a commit by the hundred. Each commit rewrites
// the pages its rows share (the indexes' leaves, the table's last page)
// in the write-ahead log: at 20 ms a read's record cost 33-55 µs of CPU,
// at 100 ms 23-33 (BenchmarkCallRecord, docs/benchmarks.md). What a
// longer delay costs is what a SIGKILL may lose: the records of the reads of the last 100 ms,
// whose ids, posted again after the restart, run the read again.
const commitDelay = 100 * time.Millisecond

func startWriter(ctx context.Context, db *sql.DB, path string, onError func(error)) (*writer, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	ckpt, err := db.Conn(ctx)
	if err != nil {
		conn.Close()
		return nil, err
	}
	w := &writer{conn: conn, walPath: path + "-wal", sync: (*os.File).Sync, onError: onError,
		kick: make(chan struct{}, 1), done: make(chan struct{}), ckpt: checkpointer{conn: ckpt}, copied: true}
	w.turnFree.L = &w.mu
	w.checkpoint = w.ckpt.checkpoint
	for _, p := range []struct {
		conn   *sql.Conn
		pragma string
	}{{conn, "PRAGMA synchronous = NORMAL"}, {ckpt, "PRAGMA busy_timeout = 0"}} {
		if _, err := p.conn.ExecContext(ctx, p.pragma); err != nil {
			conn.Close()
			ckpt.Close()
			return nil, fmt.Errorf("store: %s: %w", p.pragma, err)
		}
	}
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{{&w.upsert, upsertCall}, {&w.begin, "BEGIN"}, {&w.end, "COMMIT"}} {
		if *p.stmt, err = conn.PrepareContext(ctx, p.query); err != nil {
			conn.Close()
			ckpt.Close()
			return nil, fmt.Errorf("store: prepare %q: %w", p.query, err)
		}
	}
	go w.loop()
	return w, nil
}

// flush returns once every write queued before it is committed, without
// asking for an fsync: what a reader of the database waits for to see
// them.
func (w *writer) flush() error { return w.queue(false, true, nil) }

// queue queues ops; with wait it returns once they are committed, with
// durable (which implies wait) once they are on disk. A write that waits
// and finds no commit under way commits what is queued itself, on its
// own goroutine: handing it to the writer's goroutine and back cost two
// wake-ups, each a thread woken when the process was idle
// (BenchmarkDirectCommit, ./internal/store/).
func (w *writer) queue(durable, wait bool, ops []Op) error {
	r := request{ops: ops}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	if wait || len(w.pending) >= maxPending {
		r.done = make(chan error, 1)
		w.waited++
	}
	if durable {
		w.durables++
	}
	w.pending = append(w.pending, r)
	if r.done != nil && !w.busy && !w.handOff {
		batch, durable := w.takeLocked()
		w.mu.Unlock()
		w.run(batch, durable)
		return <-r.done
	}
	wake := len(w.pending) == 1 || r.done != nil || len(w.pending) == maxBatch
	w.mu.Unlock()
	if wake {
		w.wake()
	}
	if r.done == nil {
		return nil
	}
	return <-r.done
}

func (w *writer) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// close stops new writes and waits for the queued ones to commit.
func (w *writer) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wake()
	<-w.done
}

// urgent reports whether what is queued must commit now: someone waits
// for it, the batch is full, or the writer is closing.
func (w *writer) urgent() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.waited > 0 || len(w.pending) >= maxBatch || w.closed
}

// take hands the loop what is queued, whether the writer is closed, and
// ok false when a commit is under way (its committer wakes the loop when
// it is done).
func (w *writer) take() (batch []request, durable, closed, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.busy {
		return nil, false, w.closed, false
	}
	batch, durable = w.takeLocked()
	return batch, durable, w.closed, true
}

// takeLocked makes the caller the committer of what is queued.
func (w *writer) takeLocked() ([]request, bool) {
	batch, durable := w.pending, w.durables > 0
	w.pending, w.spare, w.waited, w.durables = w.spare, nil, 0, 0
	w.busy = true
	return batch, durable
}

// run commits a batch taken with takeLocked, answers those who wait for
// it, and lets the next committer in: the loop, woken if anything was
// queued meanwhile (it waits for a wake-up only from the first request
// of a batch, or one waited for) or the writer is closing.
//
// It counts the pages the commit wrote to the log and wakes the loop when
// they call for a checkpoint, or are the first since the last one (the
// loop then checkpoints once the writer is idle): the checkpoint runs on
// the loop's goroutine, never in a waited write's commit.
func (w *writer) run(batch []request, durable bool) {
	var err error
	frames := 0
	if len(batch) > 0 {
		if err = w.commit(batch, durable); err == nil {
			frames = w.logFrames()
		}
	}
	for _, r := range batch {
		if r.done != nil {
			r.done <- err
		}
	}
	if err != nil && w.onError != nil {
		w.onError(err)
	}
	clear(batch)
	w.mu.Lock()
	w.spare = batch[:0]
	if frames > 0 {
		w.commits++
		w.frames += frames
	}
	first := frames > 0 && w.frames == frames
	more := len(w.pending) > 0 || w.closed || first || w.frames >= checkpointFrames
	w.releaseLocked()
	w.mu.Unlock()
	if more {
		w.wake()
	}
}

// releaseLocked lets the next committer in: a write, the loop, or a
// checkpoint waiting for the turn.
func (w *writer) releaseLocked() {
	w.busy = false
	w.turnFree.Broadcast()
}

// loop commits what nobody waits for, and between batches runs the
// checkpoints: when the commits have written checkpointFrames pages to
// the log, once no commit has come for idleCheckpoint, and at close.
func (w *writer) loop() {
	defer close(w.done)
	defer w.conn.Close()
	defer w.ckpt.conn.Close()
	defer func() {
		for _, st := range []*sql.Stmt{w.upsert, w.begin, w.end} {
			st.Close()
		}
		if w.wal != nil {
			w.wal.Close()
		}
	}()
	delay := time.NewTimer(commitDelay)
	delay.Stop()
	idle := time.NewTimer(idleCheckpoint)
	idle.Stop()
	armed, since := false, 0 // the idle timer, and the commits when it was set
	for {
		select {
		case <-w.kick:
		case <-idle.C:
			armed = false
			if w.state().commits == since {
				w.runCheckpoint(false)
			}
		}
		if w.queued() {
			if !w.urgent() {
				delay.Reset(commitDelay)
				select {
				case <-w.kick: // a durable write, a full batch or close
				case <-delay.C:
				}
				delay.Stop()
			}
			if batch, durable, closed, ok := w.take(); ok {
				w.run(batch, durable)
				if closed {
					w.runCheckpoint(true)
					return
				}
			}
		}
		st := w.state()
		if st.frames >= checkpointFrames {
			w.runCheckpoint(false)
			st = w.state()
		}
		if dirty := st.frames > 0 || !st.copied; dirty && (!armed || st.commits != since) {
			idle.Reset(idleCheckpoint)
			armed, since = true, st.commits
		}
	}
}

// writerState is what the loop reads of the writer's counters.
type writerState struct {
	frames, commits int
	copied          bool
}

func (w *writer) state() writerState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return writerState{frames: w.frames, commits: w.commits, copied: w.copied}
}

// queued reports whether the loop has a batch to take: writes are queued
// or the writer is closing.
func (w *writer) queued() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending) > 0 || w.closed
}

// commit applies a batch in one transaction, and fsyncs the log after
// it when someone waits for it to be on disk (Synced).
func (w *writer) commit(batch []request, durable bool) error {
	ctx := context.Background()
	// BEGIN and COMMIT as statements on the writer's connection, not a
	// database/sql Tx: a Tx prepares a connection's statement again for
	// each transaction (Tx.StmtContext), the upsert's parse a third of a
	// read's record (BenchmarkCallRecord, ./internal/store/).
	if _, err := w.begin.ExecContext(ctx); err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	for _, r := range batch {
		for _, o := range r.ops {
			if err := exec(ctx, w.conn, w.upsert, o); err != nil {
				_, _ = w.conn.ExecContext(ctx, "ROLLBACK")
				return fmt.Errorf("store: %T: %w", o, err)
			}
		}
		// A batch of hundreds of reads' records is milliseconds of
		// work: with GOMAXPROCS at one a call waits for a row, not for
		// the whole batch.
		procs.Yield()
	}
	if _, err := w.end.ExecContext(ctx); err != nil {
		_, _ = w.conn.ExecContext(ctx, "ROLLBACK")
		return fmt.Errorf("store: commit: %w", err)
	}
	if durable {
		return w.syncLog()
	}
	return nil
}

// syncLog fsyncs the write-ahead log: the commits in it, this batch's
// and every earlier one, survive a power loss.
func (w *writer) syncLog() error {
	if w.wal == nil {
		f, err := os.OpenFile(w.walPath, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("store: open the log to sync it: %w", err)
		}
		w.wal = f
	}
	if err := w.sync(w.wal); err != nil {
		return fmt.Errorf("store: sync the log: %w", err)
	}
	return nil
}

const upsertCall = `INSERT INTO calls (seq, session_id, tool_use_id, message_id, tool, input, input_sha256, input_bytes,
	state, status, error_code, decision, decided_by, approval_reason, started_at, duration_ms, result, result_bytes, discarded)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT (seq) DO UPDATE SET message_id=excluded.message_id, tool=excluded.tool, input=excluded.input,
	input_sha256=excluded.input_sha256, input_bytes=excluded.input_bytes, state=excluded.state, status=excluded.status,
	error_code=excluded.error_code, decision=excluded.decision, decided_by=excluded.decided_by,
	approval_reason=excluded.approval_reason, duration_ms=excluded.duration_ms, result=excluded.result,
	result_bytes=excluded.result_bytes, discarded=(excluded.discarded OR calls.discarded)`

func exec(ctx context.Context, tx *sql.Conn, upsert *sql.Stmt, o Op) error {
	var err error
	switch o := o.(type) {
	case PutCall:
		c := o.Call.Resolved()
		_, err = upsert.ExecContext(ctx, c.Seq, c.SessionID, c.ToolUseID, c.MessageID, c.Tool, nullBytes(c.Input),
			c.InputSHA256, c.InputBytes, c.State, c.Status, c.ErrorCode, c.Decision, c.DecidedBy, c.ApprovalReason,
			c.StartedAt.UnixNano(), c.DurationMS, nullBytes(c.Result), c.ResultBytes, c.Discarded)
	case PutSession:
		s := o.Session
		rules := string(s.Rules)
		if rules == "" {
			rules = "{}"
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sessions (id, mode, dialect, rules, created_at, updated_at) VALUES (?,?,?,?,?,?)
			ON CONFLICT (id) DO UPDATE SET mode=excluded.mode, dialect=excluded.dialect, rules=excluded.rules, updated_at=excluded.updated_at`,
			s.ID, s.Mode, s.Dialect, rules, s.CreatedAt.UnixNano(), s.UpdatedAt.UnixNano())
	case DeleteSession:
		if _, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, o.ID); err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM edits WHERE session_id = ?`, o.ID)
		}
		if err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE calls SET discarded = 1 WHERE session_id = ?`, o.ID)
		}
	case DiscardCalls:
		for _, id := range o.ToolUseIDs {
			if _, err = tx.ExecContext(ctx, `UPDATE calls SET discarded = 1 WHERE session_id = ? AND tool_use_id = ?`, o.SessionID, id); err != nil {
				break
			}
		}
	case PutEdit:
		e := o.Edit
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO edits (session_id, tool_use_id, path, existed, deleted, content,
			after_size, after_mtime, after_hash, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)`, e.SessionID, e.ToolUseID, e.Path,
			e.Existed, e.Deleted, nullBytes(e.Content), e.AfterSize, e.AfterModTime.UnixNano(), nullBytes(e.AfterHash), e.CreatedAt.UnixNano())
	case DeleteEdit:
		_, err = tx.ExecContext(ctx, `DELETE FROM edits WHERE session_id = ? AND tool_use_id = ?`, o.SessionID, o.ToolUseID)
	default:
		err = fmt.Errorf("unknown write %T", o)
	}
	return err
}

// nullBytes stores nil as NULL and anything else, even empty, as a blob.
func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}
