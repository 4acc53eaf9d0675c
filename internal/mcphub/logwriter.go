package mcphub

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// maxLogLine bounds one logged line of a server's stderr; maxTail bounds
// the tail kept to explain a failure.
const (
	maxLogLine = 4096
	maxTail    = 2048
)

// logWriter logs a stdio server's stderr line by line at debug level, so a
// chatty server cannot flood the log at the default level, and keeps its
// last lines: when the server fails to start or dies, they usually say
// why, and GET /v1/mcp/servers shows them.
type logWriter struct {
	logger *slog.Logger
	mu     sync.Mutex
	buf    []byte
	tail   []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.keepTail(p)
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLogLine {
		w.emit(w.buf)
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

func (w *logWriter) emit(line []byte) {
	if len(line) > maxLogLine {
		line = line[:maxLogLine]
	}
	w.logger.Debug("mcp server stderr", "line", string(line))
}

// keepTail appends p to the tail and drops its oldest bytes beyond
// maxTail, starting at a line boundary where there is one.
func (w *logWriter) keepTail(p []byte) {
	w.tail = append(w.tail, p...)
	if over := len(w.tail) - maxTail; over > 0 {
		cut := w.tail[over:]
		if i := bytes.IndexByte(cut, '\n'); i >= 0 && i < len(cut)-1 {
			cut = cut[i+1:]
		}
		w.tail = append(w.tail[:0], cut...)
	}
}

// Tail is the last of what the server wrote to stderr.
func (w *logWriter) Tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimRight(strings.ToValidUTF8(string(w.tail), "\uFFFD"), "\n")
}
