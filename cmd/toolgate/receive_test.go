package main

import (
	"sync"
	"testing"
	"time"
)

// receiveLimit bounds every wait of this package's tests on a channel, so
// a regression fails in seconds instead of hanging until the test binary's
// timeout.
const receiveLimit = 30 * time.Second

// receive returns the next value from ch, failing the test when none comes
// within receiveLimit. Call it from the test's own goroutine.
func receive[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(receiveLimit):
		t.Fatalf("nothing arrived within %v", receiveLimit)
		panic("unreachable")
	}
}

// waitAll waits for wg like wg.Wait, failing the test when its goroutines
// have not all finished within receiveLimit.
func waitAll(t testing.TB, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	receive(t, done)
}
