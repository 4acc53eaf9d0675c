package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"modernc.org/sqlite"
)

// Checkpoints copy the write-ahead log's pages into the database file and
// fsync it, so that the log can start again from its beginning: a few
// milliseconds. SQLite's own (wal_autocheckpoint) runs inside whichever
// commit crosses its threshold, which may be a side-effecting call's
// start committed on the call's goroutine (queue), so it is off on every
// connection (dsn) and the writer's goroutine runs them, between batches,
// on a connection of their own: a PASSIVE checkpoint takes no lock a
// commit needs, so commits go on beside it.
//
// The log starts again only at a write that finds every frame in it
// copied, so a commit that lands while a checkpoint runs leaves it
// growing. Under sustained waited writes one always does; once the log
// holds walLimitFrames, a checkpoint also runs holding the commit turn,
// copying what the previous one left: a waited write may then wait for
// it, at most once per checkpointFrames frames written
// (TestWALStaysBounded). A reader's snapshot keeps its frames in the log
// until the reader is done; the store's (its queries, `toolgate audit
// export`'s pages) are one short query each.
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
	// leaves its database file current and its log ready to start again.
	idleCheckpoint = time.Second
	// walSizeLimit is the size the log's file is cut back to when it
	// starts again (journal_size_limit): a burst does not leave a large
	// file behind.
	walSizeLimit = 4 << 20
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

// passive copies what no reader still needs into the database file, and
// fsyncs it, without waiting for any lock.
func (c *checkpointer) passive(ctx context.Context) (checkpointResult, error) {
	var busy int
	var r checkpointResult
	if err := c.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &r.frames, &r.copied); err != nil {
		return r, fmt.Errorf("store: checkpoint: %w", err)
	}
	return r, nil
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
