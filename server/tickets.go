package server

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/randid"
)

// Tickets let EventSource clients, which cannot send an Authorization
// header, open an event stream without the token ever appearing in a URL.
// A ticket is minted with the token, names one session and expires soon;
// the store keeps only its hash, so a memory dump or a debug print leaks
// nothing usable. Until it expires it admits its session's event stream
// again: a browser's EventSource reconnects with the same URL after a
// dropped connection, sending Last-Event-ID, and resumes where the stream
// stopped. A single-use ticket made that reconnect a 401, and EventSource
// then gives up for good, losing every later event.
//
// A ticket also remembers where its streams stopped: the last event
// written to the connection. A client that connects again without
// Last-Event-ID (a page that replaces a failed EventSource with a new one
// on the same URL) resumes there instead of getting the window again.
// Last-Event-ID, when sent, wins: only the client knows what reached it.
// A ticket does not expire while a stream it opened is open, and stays
// good for its lifetime after the last one closes, so a reconnect after a
// long stream is admitted too.

const (
	ticketTTL = 60 * time.Second
	// maxTickets bounds the store; minting past it drops the oldest.
	maxTickets = 1024
)

type ticketStore struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	entries map[[32]byte]ticketEntry
}

type ticketEntry struct {
	session string
	// minter is the token that made the ticket: the stream it opens
	// carries that token's name and scopes, never more.
	minter  principal
	expires time.Time
	// position is the last event id written to a stream of the ticket.
	position int64
	// open counts the ticket's streams now open.
	open int
}

func newTicketStore(ttl time.Duration, max int, now func() time.Time) *ticketStore {
	return &ticketStore{ttl: ttl, max: max, now: now, entries: map[[32]byte]ticketEntry{}}
}

// mint returns a new ticket for session, carrying its minter's scopes.
func (ts *ticketStore) mint(session string, minter principal) string {
	ticket := randid.Base64URL(32)
	now := ts.now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.pruneLocked(now)
	if len(ts.entries) >= ts.max {
		ts.dropOldestLocked()
	}
	ts.entries[sha256.Sum256([]byte(ticket))] = ticketEntry{session: session, minter: minter, expires: now.Add(ts.ttl)}
	return ticket
}

// redeem reports whether ticket admits session's event stream now, and
// the principal that minted it. A ticket presented for the wrong session,
// or after it expired, is revoked: whoever holds a leaked ticket gets one
// guess.
func (ts *ticketStore) redeem(ticket, session string) (principal, bool) {
	key := sha256.Sum256([]byte(ticket))
	now := ts.now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	e, ok := ts.entries[key]
	if !ok {
		return principal{}, false
	}
	if e.session != session || e.open == 0 && !now.Before(e.expires) {
		delete(ts.entries, key)
		return principal{}, false
	}
	return e.minter, true
}

// attach records a stream the ticket opened and returns where the
// ticket's streams stopped (0: nowhere yet). False: the ticket is gone.
func (ts *ticketStore) attach(ticket string) (int64, bool) {
	key := sha256.Sum256([]byte(ticket))
	ts.mu.Lock()
	defer ts.mu.Unlock()
	e, ok := ts.entries[key]
	if !ok {
		return 0, false
	}
	e.open++
	ts.entries[key] = e
	return e.position, true
}

// advance records that a stream of the ticket wrote the event id.
func (ts *ticketStore) advance(ticket string, id int64) {
	key := sha256.Sum256([]byte(ticket))
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if e, ok := ts.entries[key]; ok && id > e.position {
		e.position = id
		ts.entries[key] = e
	}
}

// detach records that a stream attach counted has ended; the ticket then
// stays good for its lifetime from now.
func (ts *ticketStore) detach(ticket string) {
	key := sha256.Sum256([]byte(ticket))
	now := ts.now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	e, ok := ts.entries[key]
	if !ok {
		return
	}
	if e.open--; e.open == 0 {
		if later := now.Add(ts.ttl); later.After(e.expires) {
			e.expires = later
		}
	}
	ts.entries[key] = e
}

func (ts *ticketStore) pruneLocked(now time.Time) {
	for k, e := range ts.entries {
		if e.open == 0 && !now.Before(e.expires) {
			delete(ts.entries, k)
		}
	}
}

func (ts *ticketStore) dropOldestLocked() {
	var oldest [32]byte
	var at time.Time
	for k, e := range ts.entries {
		if e.open > 0 && len(ts.entries) > 1 {
			continue // dropping it would break its open stream's resume
		}
		if at.IsZero() || e.expires.Before(at) {
			oldest, at = k, e.expires
		}
	}
	delete(ts.entries, oldest)
}
