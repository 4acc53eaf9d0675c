package store

import (
	"encoding/json"
	"errors"
	"time"
)

// Store persists sessions, calls and edits. Writes go through Apply, in
// order; reads see every write Apply has returned from.
type Store interface {
	// Apply queues writes, applied in the order given and after every
	// earlier Apply, and returns once they are as durable as d asks (a
	// crash may lose what is less durable, never reorder it).
	Apply(d Durability, ops ...Op) error
	// NextSeq is a number no call row holds yet: a new call's key.
	NextSeq() int64
	// Sessions lists the stored sessions, oldest first.
	Sessions() ([]Session, error)
	// Edits lists the stored edits, oldest first.
	Edits() ([]Edit, error)
	// Unfinished lists the calls not done, oldest first: the ones a
	// crash interrupted or left awaiting approval.
	Unfinished() ([]Call, error)
	// CallIDs lists, per session, the tool_use ids of the calls stored
	// and not discarded: the ids that must never run again.
	CallIDs() (map[string][]string, error)
	// FindCall returns the newest stored call of a session with that
	// tool_use id that was not discarded.
	FindCall(sessionID, toolUseID string) (Call, bool, error)
	// Audit pages through calls, newest first.
	Audit(q Query) (Page, error)
	// Prune deletes finished calls and edits older than before.
	Prune(before time.Time) (int64, error)
	// Close flushes queued writes and closes the store.
	Close() error
}

// Durability is how far Apply takes its writes before it returns.
type Durability int

const (
	// Queued returns at once: the writes are committed with others
	// within the group commit's delay, so a killed toolgate may lose the
	// last of them. For what a crash may forget (a read's record).
	Queued Durability = iota
	// Committed returns once the writes are committed to the database
	// file's write-ahead log, in the operating system's hands: they
	// survive the death of the process, not a power loss. For what
	// comes before an answer (a side-effecting call's end).
	Committed
	// Synced returns once the writes are on disk (an fsync of the log):
	// they survive a power loss too. For what comes before an effect (a
	// side-effecting call's start) and what the policy obeys (sessions).
	Synced
)

// ErrClosed is returned by writes after Close.
var ErrClosed = errors.New("store is closed")

// Session is a session's durable part. The event window and the files a
// session has seen are not kept.
type Session struct {
	ID      string
	Mode    string
	Dialect string
	// Rules is the session's own permissions, as JSON.
	Rules     json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Call is one call as stored, and as the audit log shows it.
type Call struct {
	// Seq is the row's key, from NextSeq; later calls have larger ones.
	Seq       int64  `json:"seq"`
	SessionID string `json:"session_id"`
	ToolUseID string `json:"tool_use_id"`
	MessageID string `json:"message_id,omitempty"`
	Tool      string `json:"tool"`
	// Input is the call's input, or nil when it was larger than the cap:
	// then only its hash and size are kept.
	Input       json.RawMessage `json:"input,omitempty"`
	InputSHA256 string          `json:"input_sha256"`
	InputBytes  int             `json:"input_bytes"`
	// State is queued, running, awaiting_approval or done.
	State string `json:"state"`
	// Status is how a done call ended.
	Status    string `json:"status,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	// Decision is what the permission stage decided (allow, deny, ask,
	// approved, rejected, no_decision) and DecidedBy who: "rule: …",
	// "default: …", "config: …" or the label of the token that answered.
	Decision  string `json:"decision,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
	// ApprovalReason says why a call awaiting approval asks.
	ApprovalReason string    `json:"approval_reason,omitempty"`
	StartedAt      time.Time `json:"started_at"`
	DurationMS     float64   `json:"duration_ms"`
	// Result is the tool_result block, with long texts cut to their head
	// and tail; ResultBytes is the size of the block before cutting.
	Result      json.RawMessage `json:"result,omitempty"`
	ResultBytes int             `json:"result_bytes"`
	// ResultLater, when set, gives Result and ResultBytes on demand. The
	// memory store keeps it instead of the JSON, so a result the session
	// holds anyway is not kept a second time as JSON; the SQLite store
	// encodes it when the call is written. Whoever sets it must keep what
	// it reads unchanged and small.
	ResultLater func() (json.RawMessage, int) `json:"-"`
	// LaterBytes is about how many bytes what ResultLater reads holds,
	// for the memory store's bound.
	LaterBytes int `json:"-"`
	// Fill, when set, fills in fields its caller left for the store to
	// work out when it takes the row (a hash, a size): the SQLite store
	// calls it on its writer's goroutine as it writes the row, off the
	// caller's path; the memory store as it keeps the row. Whoever sets
	// it must keep what it reads unchanged.
	Fill func(*Call) `json:"-"`
	// Discarded calls were forgotten (their message discarded, or their
	// session deleted): their id may run again, but the audit log still
	// shows them. Once set it stays set.
	Discarded bool `json:"discarded,omitempty"`
}

// Resolved is the call with its Fill done, and Result and ResultBytes
// filled from ResultLater.
func (c Call) Resolved() Call {
	c.filled()
	if c.ResultLater != nil {
		c.Result, c.ResultBytes = c.ResultLater()
		c.ResultLater = nil
	}
	return c
}

// filled does the call's Fill, once.
func (c *Call) filled() {
	if c.Fill != nil {
		c.Fill(c)
		c.Fill = nil
	}
}

// Edit is what a file held before one call changed it. A call that
// changed several files has one Edit per path.
type Edit struct {
	SessionID string
	ToolUseID string
	Path      string
	Existed   bool
	// Deleted: the call removed the file.
	Deleted bool
	Content []byte
	// After is the state the call left the file in.
	AfterSize    int64
	AfterModTime time.Time
	AfterHash    []byte // nil when the file was too large to hash
	CreatedAt    time.Time
}

// Op is one write. The types below are the only ones.
type Op interface{ op() }

// PutSession creates or replaces a session.
type PutSession struct{ Session Session }

// DeleteSession removes a session and its edits; its calls stay in the
// audit log, discarded: a later session of the same id (a client may
// choose ids) neither lists them nor is answered with their results.
type DeleteSession struct{ ID string }

// PutCall creates or replaces the call row with Call.Seq.
type PutCall struct{ Call Call }

// DiscardCalls marks calls forgotten, so their ids may run again.
type DiscardCalls struct {
	SessionID  string
	ToolUseIDs []string
}

// PutEdit stores an edit's prior content.
type PutEdit struct{ Edit Edit }

// DeleteEdit drops a call's edits (reverted, or past the revert bounds).
type DeleteEdit struct{ SessionID, ToolUseID string }

func (PutSession) op()    {}
func (DeleteSession) op() {}
func (PutCall) op()       {}
func (DiscardCalls) op()  {}
func (PutEdit) op()       {}
func (DeleteEdit) op()    {}

// Query selects audit rows; zero fields match everything.
type Query struct {
	Since, Until time.Time
	SessionID    string
	Tool         string
	Status       string
	// Before continues a listing: only rows with Seq < Before.
	Before int64
	// Limit is the page size (default 100, at most 1000).
	Limit int
}

// Page is one page of audit rows, newest first. Next, when non-zero, is
// the Before of the following page.
type Page struct {
	Calls []Call
	Next  int64
}

// Page size bounds.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

func (q Query) limit() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

// matches reports whether a call passes the query's filters.
func (q Query) matches(c Call) bool {
	return (q.Since.IsZero() || !c.StartedAt.Before(q.Since)) &&
		(q.Until.IsZero() || c.StartedAt.Before(q.Until)) &&
		(q.SessionID == "" || c.SessionID == q.SessionID) &&
		(q.Tool == "" || c.Tool == q.Tool) &&
		(q.Status == "" || c.Status == q.Status || (q.Status == c.State && c.State != "done")) &&
		(q.Before <= 0 || c.Seq < q.Before)
}
