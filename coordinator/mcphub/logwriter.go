package mcphub

import (
	"bytes"
	"log/slog"
	"sync"
)

// maxLogLine bounds one logged line of a server's stderr.
const maxLogLine = 4096

// logWriter logs a stdio server's stderr line by line at debug level, so a
// chatty server cannot flood the log at the default level.
type logWriter struct {
	logger *slog.Logger
	mu     sync.Mutex
	buf    []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
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
