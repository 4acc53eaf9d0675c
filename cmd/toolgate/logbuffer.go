package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Bounds of the JSON log's buffer: a line waits at most logFlushAfter,
// and logBufferBytes of lines are written at once.
const (
	logFlushAfter  = 50 * time.Millisecond
	logBufferBytes = 32 << 10
)

// logBuffer gathers the JSON log's lines and writes them together: at
// most logFlushAfter after the first of them, as soon as they fill
// logBufferBytes, at once for a warning or an error (flushingHandler),
// and at shutdown (Flush). A write system call per line was half of
// what the request log cost a read (its other half is slog's JSON), one
// call's worth of CPU in twenty. Speed only: BenchmarkLogBuffer
// (./cmd/toolgate/, docs/benchmarks.md). What a crash that skips the
// deferred Flush loses is the info lines of its last logFlushAfter.
type logBuffer struct {
	out   io.Writer
	after time.Duration // logFlushAfter
	mu    sync.Mutex
	buf   []byte
	timer *time.Timer // armed while buf holds lines
	armed bool
}

func newLogBuffer(out io.Writer, after time.Duration) *logBuffer {
	b := &logBuffer{out: out, after: after, buf: make([]byte, 0, logBufferBytes)}
	b.timer = time.AfterFunc(time.Hour, b.Flush)
	b.timer.Stop()
	return b
}

// Write takes one line (slog's handlers write a record in one call).
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) >= logBufferBytes {
		return len(p), b.flushLocked()
	}
	if !b.armed {
		b.armed = true
		b.timer.Reset(b.after)
	}
	return len(p), nil
}

// Flush writes what the buffer holds.
func (b *logBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.flushLocked() // nowhere left to report a failed log write
}

func (b *logBuffer) flushLocked() error {
	if b.armed {
		b.armed = false
		b.timer.Stop()
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.out.Write(b.buf)
	if cap(b.buf) > 4*logBufferBytes { // a huge line: let it go
		b.buf = make([]byte, 0, logBufferBytes)
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// flushingHandler writes a warning or an error, and every line before
// it, at once: those are the lines someone watches for.
type flushingHandler struct {
	slog.Handler
	buf *logBuffer
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.buf.Flush()
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.buf}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.buf}
}
