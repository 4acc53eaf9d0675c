package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the schema's versions, in order: migrations[i] takes the
// database from version i to i+1 (PRAGMA user_version). Never edit one
// that has shipped; append a new one.
var migrations = []string{
	`CREATE TABLE sessions (
		id         TEXT PRIMARY KEY,
		mode       TEXT NOT NULL,
		dialect    TEXT NOT NULL DEFAULT '',
		rules      TEXT NOT NULL DEFAULT '{}',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE TABLE calls (
		seq             INTEGER PRIMARY KEY,
		session_id      TEXT NOT NULL,
		tool_use_id     TEXT NOT NULL,
		message_id      TEXT NOT NULL DEFAULT '',
		tool            TEXT NOT NULL,
		input           BLOB,
		input_sha256    TEXT NOT NULL DEFAULT '',
		input_bytes     INTEGER NOT NULL DEFAULT 0,
		state           TEXT NOT NULL,
		status          TEXT NOT NULL DEFAULT '',
		error_code      TEXT NOT NULL DEFAULT '',
		decision        TEXT NOT NULL DEFAULT '',
		decided_by      TEXT NOT NULL DEFAULT '',
		approval_reason TEXT NOT NULL DEFAULT '',
		started_at      INTEGER NOT NULL,
		duration_ms     REAL NOT NULL DEFAULT 0,
		result          BLOB,
		result_bytes    INTEGER NOT NULL DEFAULT 0,
		discarded       INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX calls_by_id ON calls (session_id, tool_use_id);
	CREATE INDEX calls_by_time ON calls (started_at);
	CREATE INDEX calls_unfinished ON calls (state) WHERE state <> 'done';
	CREATE TABLE edits (
		session_id  TEXT NOT NULL,
		tool_use_id TEXT NOT NULL,
		path        TEXT NOT NULL,
		existed     INTEGER NOT NULL,
		deleted     INTEGER NOT NULL DEFAULT 0,
		content     BLOB,
		after_size  INTEGER NOT NULL,
		after_mtime INTEGER NOT NULL,
		after_hash  BLOB,
		created_at  INTEGER NOT NULL,
		PRIMARY KEY (session_id, tool_use_id, path)
	);`,
}

// SchemaVersion is the version this build migrates to.
var SchemaVersion = len(migrations)

// migrate applies the migrations the database has not seen, each in its
// own transaction with its version bump, so a crash mid-way leaves a
// database at a version it really has.
func migrate(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("the state database has schema version %d, newer than this toolgate knows (%d); use a newer toolgate", v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	return nil
}
