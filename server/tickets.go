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
	expires time.Time
}

func newTicketStore(ttl time.Duration, max int, now func() time.Time) *ticketStore {
	return &ticketStore{ttl: ttl, max: max, now: now, entries: map[[32]byte]ticketEntry{}}
}

// mint returns a new ticket for session.
func (ts *ticketStore) mint(session string) string {
	ticket := randid.Base64URL(32)
	now := ts.now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.pruneLocked(now)
	if len(ts.entries) >= ts.max {
		ts.dropOldestLocked()
	}
	ts.entries[sha256.Sum256([]byte(ticket))] = ticketEntry{session: session, expires: now.Add(ts.ttl)}
	return ticket
}

// redeem reports whether ticket admits session's event stream now. A
// ticket presented for the wrong session, or after it expired, is
// revoked: whoever holds a leaked ticket gets one guess.
func (ts *ticketStore) redeem(ticket, session string) bool {
	key := sha256.Sum256([]byte(ticket))
	now := ts.now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	e, ok := ts.entries[key]
	if !ok {
		return false
	}
	if e.session != session || !now.Before(e.expires) {
		delete(ts.entries, key)
		return false
	}
	return true
}

func (ts *ticketStore) pruneLocked(now time.Time) {
	for k, e := range ts.entries {
		if !now.Before(e.expires) {
			delete(ts.entries, k)
		}
	}
}

func (ts *ticketStore) dropOldestLocked() {
	var oldest [32]byte
	var at time.Time
	for k, e := range ts.entries {
		if at.IsZero() || e.expires.Before(at) {
			oldest, at = k, e.expires
		}
	}
	delete(ts.entries, oldest)
}
