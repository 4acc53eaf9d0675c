package coordinator

import (
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestCallEntryWait: a call's wake channel is made for its first waiter
// only, shared by the next, and closed by whoever wakes the call; a call
// no one waited for is woken without one, and a woken call is not waited
// for.
func TestCallEntryWait(t *testing.T) {
	e := &callEntry{}
	if e.done != nil {
		t.Fatal("a new call has a wake channel")
	}
	w1, w2 := e.waitLocked(), e.waitLocked()
	if w1 == nil || w1 != w2 {
		t.Fatalf("waiters got %v and %v, want one channel", w1, w2)
	}
	done := e.wakeLocked()
	if (<-chan struct{})(done) != w1 {
		t.Fatal("wake returned another channel than the waiters'")
	}
	close(done)
	if w := e.waitLocked(); w != nil {
		t.Fatal("a woken call is waited for")
	}
	alone := &callEntry{}
	if done := alone.wakeLocked(); done != nil || alone.done != nil {
		t.Fatal("a call no one waited for made a wake channel")
	}
}

// BenchmarkCallDone times a call's wake as finish makes it (the session
// locked once more to mark it woken, no channel when no one waits) against
// the channel made at the claim and closed at the finish, as it was.
//
//	go test -run '^$' -bench CallDone -count 5 ./coordinator/
func BenchmarkCallDone(b *testing.B) {
	s := newSession("s1", api.ModeAct, api.Permissions{}, func() *Config { c := DefaultConfig(); return &c }())
	benchpair.Run(b, func() {
		e := &callEntry{}
		s.mu.Lock()
		done := e.wakeLocked()
		s.mu.Unlock()
		if done != nil {
			close(done)
		}
	}, func() {
		e := &callEntry{done: make(chan struct{})}
		close(e.done)
	})
}
