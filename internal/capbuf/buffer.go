package capbuf

import "sync"

// Buffer keeps the first Max bytes added to it. It is safe for concurrent
// use: a process's stdout and stderr chunks arrive from two readers.
type Buffer struct {
	Max int

	mu  sync.Mutex
	buf []byte
	cut bool
}

// Add appends s, or as much of it as the cap leaves room for.
func (b *Buffer) Add(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.Max - len(b.buf)
	if len(s) > room {
		s, b.cut = s[:max(room, 0)], true
	}
	b.buf = append(b.buf, s...)
}

// Bytes is what the buffer holds. The slice is the buffer's own.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf
}

// Cut reports whether something added did not fit.
func (b *Buffer) Cut() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cut
}

// Reset empties the buffer, for an answer that replaces what came before.
func (b *Buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf, b.cut = b.buf[:0], false
}
