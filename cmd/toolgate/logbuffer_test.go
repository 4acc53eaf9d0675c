package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/launch"
)

// logLines is the log's lines so far (the logger's timer may write to
// out while a test reads it).
func logLines(out *launch.LogBuffer) []string {
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// TestJSONLogFlush: JSON lines are gathered and written together, in
// order, by the flush that serve defers; a warning takes every line
// before it out at once.
func TestJSONLogFlush(t *testing.T) {
	var out launch.LogBuffer
	logger, flush, err := newLogger(&out, "json", "info")
	if err != nil {
		t.Fatal(err)
	}
	defer flush()
	logger.Info("first", "n", 1)
	logger.Info("second", "n", 2)
	logger.Warn("third", "n", 3)
	if got := logLines(&out); len(got) != 3 || !strings.Contains(got[0], `"msg":"first"`) || !strings.Contains(got[2], `"msg":"third"`) {
		t.Fatalf("after a warning the log holds %q, want the three lines in order", got)
	}
	logger.With("request_id", "r1").Error("fourth")
	if got := logLines(&out); len(got) != 4 || !strings.Contains(got[3], `"request_id":"r1"`) {
		t.Fatalf("an error line through a derived logger was not written at once: %q", got)
	}
	logger.Info("fifth")
	flush()
	got := logLines(&out)
	if len(got) != 5 || !strings.Contains(got[4], `"msg":"fifth"`) {
		t.Fatalf("after flush the log holds %q, want five lines", got)
	}
	for _, l := range got {
		if !json.Valid([]byte(l)) {
			t.Errorf("log line %q is not JSON", l)
		}
	}
}

// TestJSONLogWrittenUnasked: an info line nobody flushes reaches the log
// within logFlushAfter, and a buffer's worth of lines at once.
func TestJSONLogWrittenUnasked(t *testing.T) {
	var out launch.LogBuffer
	logger, flush, err := newLogger(&out, "json", "info")
	if err != nil {
		t.Fatal(err)
	}
	defer flush()
	logger.Info("alone")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), `"msg":"alone"`) {
		if time.Now().After(deadline) {
			t.Fatal("an info line was never written without a flush")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var big launch.LogBuffer
	b := newLogBuffer(&big, time.Hour)
	defer b.Flush()
	line := strings.Repeat("x", 1023) + "\n"
	for i := range logBufferBytes / len(line) {
		if n := len(big.String()); n != 0 {
			t.Fatalf("%d lines wrote %d bytes before the buffer was full", i, n)
		}
		_, _ = b.Write([]byte(line))
	}
	if n := len(big.String()); n != logBufferBytes {
		t.Errorf("a full buffer wrote %d bytes, want %d", n, logBufferBytes)
	}
}

// TestTextLogUnbuffered: the terminal's format is written as it comes.
func TestTextLogUnbuffered(t *testing.T) {
	var out launch.LogBuffer
	logger, flush, err := newLogger(&out, "text", "info")
	if err != nil {
		t.Fatal(err)
	}
	defer flush()
	logger.Info("now")
	if !strings.Contains(out.String(), "now") {
		t.Errorf("a text line waited: %q", out.String())
	}
}

// BenchmarkLogBuffer: a request's log line through the JSON handler to a
// file, gathered by logBuffer (fast) or written at once (plain), as the
// request log was.
func BenchmarkLogBuffer(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := newLogBuffer(f, logFlushAfter)
	defer buf.Flush()
	fast := slog.New(flushingHandler{slog.NewJSONHandler(buf, nil), buf})
	plain := slog.New(slog.NewJSONHandler(f, nil))
	line := func(l *slog.Logger) {
		l.LogAttrs(context.Background(), slog.LevelInfo, "http request",
			slog.String("request_id", "host/abc-000042"), slog.String("method", "POST"), slog.String("path", "/v1/tool_use"),
			slog.String("route", "/v1/tool_use"), slog.Int("status", 200), slog.Int("bytes", 2129), slog.Float64("duration_ms", 0.135))
	}
	benchpair.Run(b, func() { line(fast) }, func() { line(plain) })
}
