package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"modernc.org/sqlite"
)

// Checkpoints copy the write-ahead log's pages into the database file and
// fsync it, so that the log can start again from its beginning: a
// millisecond or more, most of it the fsync. SQLite's own
// (wal_autocheckpoint) runs inside whichever commit crosses its
// threshold, which may be a side-effecting call's start committed on the
// call's goroutine (queue), so it is off on every connection (dsn) and
// the writer's goroutine runs them, between batches, on a connection of
// their own: a PASSIVE checkpoint takes no lock a commit needs, so
// commits go on beside it.
//
// The log starts again only at a write that finds every frame in it
// copied, so a commit that lands while a checkpoint runs leaves it
// growing; under sustained waited writes one always does. Once the log
// holds walLimitFrames, a checkpoint also runs holding the commit turn,
// copying what the commits wrote while the one before ran: a waited
// write may then wait for it, at most once per checkpointFrames frames
// written (TestWALStaysBounded). Once the writer has been idle for
// idleCheckpoint it copies what is left. The log's file keeps the length
// it reached (about 25 MB under sustained load) until close, which
// checkpoints and empties it: cutting it back is a truncate, 15-30 ms for
// 20 MB on ext4, which a call would wait for (journal_size_limit does it
// in the first commit after the log starts again; TRUNCATE holds the
// write lock through it). A reader's snapshot keeps its frames in the
// log until the reader is done; the store's readers (its queries,
// `toolgate audit export`'s pages) are one short query each.
const (
	// checkpointFrames is how many pages the writer's commits write to
	// the log before a checkpoint: SQLite's own default, 4 MB of 4 KB
	// pages.
	checkpointFrames = 1000
	// walLimitFrames is the log's length from which a checkpoint holds
	// the commit turn.
	walLimitFrames = 4 * checkpointFrames
	// idleCheckpoint is how long the writer waits after the last commit
	// before it checkpoints what the log holds: a server between turns
	// leaves its database file current, and its log all copied (the next
	// commit starts it again).
	idleCheckpoint = time.Second
)

// checkpointer runs the writer's checkpoints on its own connection.
type checkpointer struct {
	conn *sql.Conn
}

// checkpointResult is what PRAGMA wal_checkpoint answers: the log's
// frames and how many of them are in the database file.
type checkpointResult struct {
	frames, copied int
}

// complete reports whether every frame of the log is in the database
// file: the next write starts the log again.
func (r checkpointResult) complete() bool { return r.copied >= r.frames }

// checkpoint runs PRAGMA wal_checkpoint in mode: PASSIVE copies what no
// reader still needs into the database file, and fsyncs it, without
// waiting for any lock; TRUNCATE also empties the log's file, or answers
// at once that a reader or a writer is in the way (the connection's
// busy_timeout is 0: it never waits while it holds the commit turn).
func (c *checkpointer) checkpoint(ctx context.Context, mode string) (checkpointResult, error) {
	var busy int
	var r checkpointResult
	if err := c.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &r.frames, &r.copied); err != nil {
		return r, fmt.Errorf("store: checkpoint: %w", err)
	}
	return r, nil
}

// runCheckpoint checkpoints the log beside the commits. Once the log has
// grown to walLimitFrames (commits landed while the earlier checkpoints
// ran, and it never started again), it copies what the commits wrote
// meanwhile holding the commit turn, so that the next commit starts the
// log again; when the writer is closing, and everything is copied, it
// empties the log's file (the comment at the top of this file).
func (w *writer) runCheckpoint(closing bool) {
	ctx := context.Background()
	w.mu.Lock()
	w.frames = 0 // what is written from here on is for the next
	w.mu.Unlock()
	r, err := w.checkpoint(ctx, "PASSIVE")
	switch {
	case err != nil:
	case closing && r.complete():
		w.holdingTurn(func() { r, err = w.checkpoint(ctx, "TRUNCATE") })
	case r.frames >= walLimitFrames:
		w.holdingTurn(func() { r, err = w.checkpoint(ctx, "PASSIVE") })
	}
	if err != nil {
		if w.onError != nil {
			w.onError(err)
		}
		return
	}
	w.mu.Lock()
	w.copied = r.complete()
	w.mu.Unlock()
}

// holdingTurn runs f once no commit is under way, with none starting
// until it returns: writes that wait queue for the loop meanwhile.
func (w *writer) holdingTurn(f func()) {
	w.mu.Lock()
	for w.busy {
		w.turnFree.Wait()
	}
	w.busy = true
	w.mu.Unlock()
	f()
	w.mu.Lock()
	more := len(w.pending) > 0 || w.closed
	w.releaseLocked()
	w.mu.Unlock()
	if more {
		w.wake()
	}
}

// logFrames is how many pages the commit just made wrote to the log; a
// failure to read the counter is reported, not the commit's (the count
// only times the checkpoints: the idle one still runs).
func (w *writer) logFrames() int {
	n, err := framesWritten(w.conn)
	if err != nil && w.onError != nil {
		w.onError(err)
	}
	return n
}

// framesWritten is how many pages conn has written since it was last
// asked: in WAL mode, the frames its commits appended to the log.
func framesWritten(conn *sql.Conn) (int, error) {
	var n int
	err := conn.Raw(func(dc any) error {
		st, ok := dc.(sqlite.DBStatus)
		if !ok {
			return fmt.Errorf("store: %T has no status counters", dc)
		}
		var err error
		n, _, err = st.Status(sqlite.DBStatusCacheWrite, true)
		return err
	})
	return n, err
}
