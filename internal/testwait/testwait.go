package testwait

import (
	"sync"
	"testing"
	"time"
)

// Limit bounds every wait made through this package.
const Limit = 30 * time.Second

// Receive returns the next value from ch, failing the test when none comes
// within Limit. Call it from the test's own goroutine.
func Receive[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(Limit):
		t.Fatalf("nothing arrived within %v", Limit)
		panic("unreachable")
	}
}

// All waits for wg like wg.Wait, failing the test when its goroutines have
// not all finished within Limit.
func All(t testing.TB, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	Receive(t, done)
}

// Until polls cond every 20 ms until it holds, failing the test when it
// has not within limit (at most Limit); what names what was awaited.
func Until(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(min(limit, Limit))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", min(limit, Limit), what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
