package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// writer is the one goroutine that writes: it takes every request queued
// while the previous batch committed and commits them together, so a
// busy server pays one commit (and one fsync) for many calls, and no
// request waits on SQLite unless it asked to be durable.
type writer struct {
	conn    *sql.Conn // the writer's own connection, its statements prepared once
	upsert  *sql.Stmt // upsertCall on conn
	onError func(error)
	queue   chan request
	done    chan struct{}

	mu     sync.RWMutex // held for reading while sending, for writing by close
	closed bool
}

type request struct {
	ops  []Op
	done chan error // nil when nobody waits
}

// maxBatch bounds how many requests one transaction commits.
const maxBatch = 512

func startWriter(ctx context.Context, db *sql.DB, onError func(error)) (*writer, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	upsert, err := conn.PrepareContext(ctx, upsertCall)
	if err != nil {
		conn.Close()
		return nil, err
	}
	w := &writer{conn: conn, upsert: upsert, onError: onError, queue: make(chan request, 4096), done: make(chan struct{})}
	go w.loop()
	return w, nil
}

func (w *writer) apply(durable bool, ops []Op) error {
	r := request{ops: ops}
	if durable {
		r.done = make(chan error, 1)
	}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return ErrClosed
	}
	w.queue <- r
	w.mu.RUnlock()
	if r.done == nil {
		return nil
	}
	return <-r.done
}

// close stops new writes and waits for the queued ones to commit.
func (w *writer) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.queue)
	}
	w.mu.Unlock()
	<-w.done
}

func (w *writer) loop() {
	defer close(w.done)
	defer w.conn.Close()
	defer w.upsert.Close()
	batch := make([]request, 0, maxBatch)
	for r := range w.queue {
		batch = append(batch[:0], r)
	drain:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-w.queue:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		err := w.commit(batch)
		for _, r := range batch {
			if r.done != nil {
				r.done <- err
			}
		}
		if err != nil && w.onError != nil {
			w.onError(err)
		}
	}
}

// commit applies a batch in one transaction.
func (w *writer) commit(batch []request) error {
	ctx := context.Background()
	tx, err := w.conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	upsert := tx.StmtContext(ctx, w.upsert)
	for _, r := range batch {
		for _, o := range r.ops {
			if err := exec(ctx, tx, upsert, o); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("store: %T: %w", o, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
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
	result_bytes=excluded.result_bytes, discarded=excluded.discarded`

func exec(ctx context.Context, tx *sql.Tx, upsert *sql.Stmt, o Op) error {
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
