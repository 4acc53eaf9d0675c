package launch

import (
	"bytes"
	"sync"
)

// LogBuffer collects a server's log while it runs (Start keeps one when
// Options name no other place; a test that runs toolgate in its own
// process passes one as stderr): writes and reads may come from
// different goroutines.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
