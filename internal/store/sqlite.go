package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// SQLite is the embedded store: one database file in WAL mode, written by
// one goroutine that commits queued writes in batches.
type SQLite struct {
	db   *sql.DB
	lock *os.File // nil when opened read-only
	seq  atomic.Int64
	w    *writer
}

// lockWait is how long Open waits for another process to let go of the
// lock. A toolgate that was just killed can hold it a moment after its
// parent saw it exit (the kernel releases its files as it tears the
// process down), and a supervisor restarts it at once.
const lockWait = 15 * time.Second

// Options tune Open.
type Options struct {
	// ReadOnly opens an existing database for queries only (audit
	// export beside a running server): no lock, no migrations, no writes.
	ReadOnly bool
	// OnError hears about failed writes nobody waited for.
	OnError func(error)
}

// Open opens (creating it and its directory if needed) the database at
// path, migrates it to SchemaVersion and starts its writer.
func Open(ctx context.Context, path string, o Options) (*SQLite, error) {
	if o.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("no state database at %s", path)
			}
			return nil, err
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	s := &SQLite{}
	if !o.ReadOnly {
		lock, err := lockFile(path+".lock", lockWait)
		if err != nil {
			return nil, err
		}
		s.lock = lock
	}
	if !o.ReadOnly {
		// The file holds inputs and results: only its owner may read it.
		// Created here, before SQLite opens it, as SQLite gives the
		// -wal and -shm files it creates the database file's mode.
		if err := createPrivate(path); err != nil {
			s.unlock()
			return nil, err
		}
	}
	db, err := sql.Open("sqlite", dsn(path, o.ReadOnly))
	if err != nil {
		s.unlock()
		return nil, err
	}
	s.db = db
	if err := s.init(ctx, o.ReadOnly); err != nil {
		db.Close()
		s.unlock()
		return nil, fmt.Errorf("state database %s: %w", path, err)
	}
	if !o.ReadOnly {
		w, err := startWriter(ctx, db, path, o.OnError)
		if err != nil {
			db.Close()
			s.unlock()
			return nil, err
		}
		s.w = w
	}
	return s, nil
}

// createPrivate creates the database file readable by its owner only, or
// makes an existing one so (with its -wal and -shm files).
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("state database: %w", err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("state database: %w", err)
		}
	}
	return nil
}

// dsn sets the pragmas on every connection the pool opens. FULL makes a
// commit in WAL mode reach the disk before it returns: the migrations'
// and Prune's. The writer's connection sets NORMAL and fsyncs the log
// itself after a Synced batch (writer.go).
func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	if readOnly {
		q.Add("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		// The writer's goroutine runs the checkpoints (checkpoint.go).
		q.Add("_pragma", "wal_autocheckpoint(0)")
	}
	return "file:" + path + "?" + q.Encode()
}

func (s *SQLite) init(ctx context.Context, readOnly bool) error {
	if readOnly {
		var v int
		if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
			return err
		}
		if v != SchemaVersion {
			return fmt.Errorf("schema version %d, this toolgate reads %d (start toolgate serve once to migrate it)", v, SchemaVersion)
		}
	} else if err := migrate(ctx, s.db); err != nil {
		return err
	}
	var max sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT max(seq) FROM calls`).Scan(&max); err != nil {
		return err
	}
	s.seq.Store(max.Int64)
	return nil
}

func (s *SQLite) unlock() {
	if s.lock != nil {
		s.lock.Close()
	}
}

// NextSeq is one more than any seq handed out or stored.
func (s *SQLite) NextSeq() int64 { return s.seq.Add(1) }

// Apply queues the writes for the writer goroutine.
func (s *SQLite) Apply(d Durability, ops ...Op) error {
	if s.w == nil {
		return errors.New("store opened read-only")
	}
	return s.w.queue(d == Synced, d >= Committed, ops)
}

// Close writes what is queued, then closes the database and its lock.
func (s *SQLite) Close() error {
	var err error
	if s.w != nil {
		s.w.close()
	}
	err = s.db.Close()
	s.unlock()
	return err
}

// CheckIntegrity runs SQLite's full integrity check.
func (s *SQLite) CheckIntegrity(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity check: %v", problems)
	}
	return nil
}
