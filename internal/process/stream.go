package process

import (
	"bytes"
	"fmt"
	"sync"
	"time"
)

// maxChunk bounds one live chunk, so that a session's event window holds a
// bounded number of bytes.
const maxChunk = 8 << 10

// sink is where both streams' chunks meet: it appends them to the combined
// output in the order they are flushed and forwards them live, within a
// byte-rate budget so that a command printing without end cannot flood
// the session's events.
type sink struct {
	mu      sync.Mutex
	out     *Output
	onChunk func(stream, chunk string)
	onBytes func(stream string, n int)
	live    bucket
	dropped int64
}

func (k *sink) emit(stream string, b []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, _ = k.out.Write(b)
	if k.onBytes != nil {
		k.onBytes(stream, len(b))
	}
	if k.onChunk == nil {
		return
	}
	if !k.live.take(len(b), time.Now()) {
		k.dropped += int64(len(b))
		return
	}
	chunk := string(b)
	if k.dropped > 0 {
		chunk = fmt.Sprintf("[... %s not streamed live (too fast); the result has them ...]\n", size(k.dropped)) + chunk
		k.dropped = 0
	}
	k.onChunk(stream, chunk)
}

// bucket is a token bucket of bytes.
type bucket struct {
	rate, burst float64 // bytes per second, bytes
	tokens      float64
	last        time.Time
}

func (b *bucket) take(n int, now time.Time) bool {
	if b.last.IsZero() {
		b.tokens = b.burst
	} else {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	if b.tokens < float64(n) {
		return false
	}
	b.tokens -= float64(n)
	return true
}

// readBuffers are the pipes' read buffers, reused between runs: a command
// like `true` reads nothing, and zeroing fresh ones cost more than its
// output handling (BenchmarkReadBuffers, ./internal/process/,
// docs/benchmarks.md).
var readBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// streamer turns one pipe's reads into chunks: everything up to the last
// newline goes at once; a partial line waits at most delay for its end.
type streamer struct {
	name  string
	sink  *sink
	delay time.Duration

	mu      sync.Mutex
	pending []byte
	timer   *time.Timer
}

// end flushes what is left once the pipe has ended or was abandoned.
func (s *streamer) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.flushLocked(len(s.pending))
}

func (s *streamer) add(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, p...)
	for len(s.pending) >= maxChunk {
		s.flushLocked(len(validPrefix(s.pending[:maxChunk])))
	}
	if i := bytes.LastIndexByte(s.pending, '\n'); i >= 0 {
		s.flushLocked(i + 1)
	}
	if len(s.pending) > 0 && s.timer == nil {
		s.timer = time.AfterFunc(s.delay, s.flushPartial)
	}
}

// flushPartial sends a line that has waited long enough, keeping back only
// an incomplete UTF-8 sequence at its end.
func (s *streamer) flushPartial() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer = nil
	s.flushLocked(len(validPrefix(s.pending)))
}

func (s *streamer) flushLocked(n int) {
	if n <= 0 {
		n = min(len(s.pending), maxChunk) // not UTF-8 at all: send as is
	}
	if n == 0 {
		return
	}
	s.sink.emit(s.name, s.pending[:n])
	s.pending = s.pending[:copy(s.pending, s.pending[n:])]
}
