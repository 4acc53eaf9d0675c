package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

const callColumns = `seq, session_id, tool_use_id, message_id, tool, input, input_sha256, input_bytes, state, status,
	error_code, decision, decided_by, approval_reason, started_at, duration_ms, result, result_bytes, discarded`

func scanCall(rows interface{ Scan(...any) error }) (Call, error) {
	var c Call
	var started int64
	var input, result []byte
	err := rows.Scan(&c.Seq, &c.SessionID, &c.ToolUseID, &c.MessageID, &c.Tool, &input, &c.InputSHA256, &c.InputBytes,
		&c.State, &c.Status, &c.ErrorCode, &c.Decision, &c.DecidedBy, &c.ApprovalReason, &started, &c.DurationMS,
		&result, &c.ResultBytes, &c.Discarded)
	c.Input, c.Result = input, result
	c.StartedAt = time.Unix(0, started).UTC()
	return c, err
}

func (s *SQLite) calls(ctx context.Context, query string, args ...any) ([]Call, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Call
	for rows.Next() {
		c, err := scanCall(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Sessions lists the stored sessions, oldest first.
func (s *SQLite) Sessions() ([]Session, error) {
	rows, err := s.db.Query(`SELECT id, mode, dialect, rules, created_at, updated_at FROM sessions ORDER BY created_at`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var x Session
		var rules string
		var created, updated int64
		if err := rows.Scan(&x.ID, &x.Mode, &x.Dialect, &rules, &created, &updated); err != nil {
			return nil, err
		}
		x.Rules = []byte(rules)
		x.CreatedAt, x.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
		out = append(out, x)
	}
	return out, rows.Err()
}

// Edits lists the stored edits, oldest first.
func (s *SQLite) Edits() ([]Edit, error) {
	rows, err := s.db.Query(`SELECT session_id, tool_use_id, path, existed, deleted, content, after_size, after_mtime, after_hash,
		created_at FROM edits ORDER BY created_at`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Edit
	for rows.Next() {
		var e Edit
		var mtime, created int64
		if err := rows.Scan(&e.SessionID, &e.ToolUseID, &e.Path, &e.Existed, &e.Deleted, &e.Content, &e.AfterSize, &mtime, &e.AfterHash, &created); err != nil {
			return nil, err
		}
		e.AfterModTime, e.CreatedAt = time.Unix(0, mtime), time.Unix(0, created).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// Unfinished lists the calls not done and not discarded, oldest first.
func (s *SQLite) Unfinished() ([]Call, error) {
	return s.calls(context.Background(), `SELECT `+callColumns+` FROM calls WHERE state <> 'done' AND discarded = 0 ORDER BY seq`)
}

// CallIDs lists the tool_use ids of the stored calls, per session.
func (s *SQLite) CallIDs() (map[string][]string, error) {
	rows, err := s.db.Query(`SELECT session_id, tool_use_id FROM calls WHERE discarded = 0`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var sid, id string
		if err := rows.Scan(&sid, &id); err != nil {
			return nil, err
		}
		out[sid] = append(out[sid], id)
	}
	return out, rows.Err()
}

// FindCall returns the newest stored call of a session with that id.
func (s *SQLite) FindCall(sessionID, toolUseID string) (Call, bool, error) {
	row := s.db.QueryRow(`SELECT `+callColumns+` FROM calls WHERE session_id = ? AND tool_use_id = ? AND discarded = 0
		ORDER BY seq DESC LIMIT 1`, sessionID, toolUseID)
	c, err := scanCall(row)
	if err == sql.ErrNoRows {
		return Call{}, false, nil
	}
	return c, err == nil, err
}

// Audit pages through calls, newest first (by seq, the order calls
// arrived in).
func (s *SQLite) Audit(q Query) (Page, error) {
	if err := s.flush(); err != nil {
		return Page{}, err
	}
	var where []string
	var args []any
	add := func(cond string, arg any) { where = append(where, cond); args = append(args, arg) }
	if !q.Since.IsZero() {
		add("started_at >= ?", q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		add("started_at < ?", q.Until.UnixNano())
	}
	if q.SessionID != "" {
		add("session_id = ?", q.SessionID)
	}
	if q.Tool != "" {
		add("tool = ?", q.Tool)
	}
	if q.Status != "" {
		where = append(where, "(status = ? OR (state = ? AND state <> 'done'))")
		args = append(args, q.Status, q.Status)
	}
	if q.Before > 0 {
		add("seq < ?", q.Before)
	}
	query := `SELECT ` + callColumns + ` FROM calls`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	limit := q.limit()
	query += " ORDER BY seq DESC LIMIT ?"
	args = append(args, limit+1)
	calls, err := s.calls(context.Background(), query, args...)
	if err != nil {
		return Page{}, err
	}
	var page Page
	if len(calls) > limit {
		calls = calls[:limit]
		page.Next = calls[limit-1].Seq
	}
	page.Calls = calls
	return page, nil
}

// Prune deletes finished calls and edits older than before. SQLite
// serializes it with the writer's batches (busy_timeout waits).
func (s *SQLite) Prune(before time.Time) (int64, error) {
	if err := s.flush(); err != nil {
		return 0, err
	}
	res, err := s.db.Exec(`DELETE FROM calls WHERE state = 'done' AND started_at < ?`, before.UnixNano())
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if _, err := s.db.Exec(`DELETE FROM edits WHERE created_at < ?`, before.UnixNano()); err != nil {
		return n, err
	}
	return n, nil
}

// flush waits for the writes queued so far to commit, so that a query
// sees every write Apply returned from: records nobody waits for gather
// for up to commitDelay first.
func (s *SQLite) flush() error {
	if s.w == nil { // read-only: nothing is queued here
		return nil
	}
	return s.w.flush()
}
