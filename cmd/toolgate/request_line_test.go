package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/server"
)

// requestLines are the seeds of TestRequestLineAgrees: what slog escapes
// in a string (quotes, control characters, invalid UTF-8, U+2028) and
// what it leaves (HTML), the float formats, the levels and zones.
var requestLines = []server.RequestLine{
	{Time: time.Date(2026, 12, 3, 3, 20, 1, 123456789, time.UTC), Level: slog.LevelInfo, ID: "host/abc-000042", Method: "POST",
		Path: "/v1/tool_use", Route: "/v1/tool_use", Status: 200, Bytes: 2129, DurationMS: 0.135},
	{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", -5*3600-30*60)), Level: slog.LevelDebug, ID: `a"b\c<d>&e`, Method: "GET",
		Path: "/v1/sessions/\n\t\r\b\f\x00\x1f\x7f", Route: "unmatched", Status: 404, Bytes: 0, DurationMS: 1e-7},
	{Time: time.Now(), Level: slog.LevelWarn, ID: "bad \xff\xfe \xc3 é 🎉 \u2028\u2029", Method: "PATCH", Path: "/x/中文", Route: "/x/{id}",
		Status: 500, Bytes: -1, DurationMS: 1e21},
	{Time: time.Date(2026, 5, 6, 7, 8, 9, 100, time.Local), Level: slog.LevelError, DurationMS: 12345.678},
}

// TestRequestLineAgrees: the line requestLineHandler writes is byte for
// byte the line slog's JSONHandler writes for the line's record.
func TestRequestLineAgrees(t *testing.T) {
	for _, l := range requestLines {
		checkRequestLineAgrees(t, l)
	}
}

func FuzzRequestLineAgrees(f *testing.F) {
	for _, l := range requestLines {
		f.Add(l.Time.UnixNano(), int(l.Level), l.ID, l.Method, l.Path, l.Route, l.Status, l.Bytes, l.DurationMS)
	}
	f.Fuzz(func(t *testing.T, ns int64, level int, id, method, path, route string, status, bytes int, ms float64) {
		if math.IsNaN(ms) || math.IsInf(ms, 0) {
			ms = 0 // a duration is neither
		}
		checkRequestLineAgrees(t, server.RequestLine{Time: time.Unix(0, ns), Level: slog.Level(level), ID: id, Method: method,
			Path: path, Route: route, Status: status, Bytes: bytes, DurationMS: ms})
	})
}

func checkRequestLineAgrees(t *testing.T, l server.RequestLine) {
	t.Helper()
	var got, want bytes.Buffer
	buf := newLogBuffer(&got, time.Hour)
	h := requestLineHandler{flushingHandler{slog.NewJSONHandler(buf, nil), buf}}
	if !h.HandleRequestLine(l) {
		t.Fatalf("HandleRequestLine(%+v) wrote nothing", l)
	}
	buf.Flush()
	if err := slog.NewJSONHandler(&want, nil).Handle(context.Background(), l.Record()); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("line:\n got %s\nwant %s", got.String(), want.String())
	}
}

// BenchmarkRequestLineHandler: a request's line written by
// requestLineHandler against slog's JSONHandler given its record, both
// into a logBuffer over a discarded output.
//
//	go test -run '^$' -bench RequestLineHandler ./cmd/toolgate/
func BenchmarkRequestLineHandler(b *testing.B) {
	buf := newLogBuffer(io.Discard, time.Hour)
	h := requestLineHandler{flushingHandler{slog.NewJSONHandler(buf, nil), buf}}
	l := requestLines[0]
	l.Time = time.Now()
	ctx := context.Background()
	benchpair.Run(b, func() { h.HandleRequestLine(l) }, func() { _ = h.Handle(ctx, l.Record()) })
}

// TestJSONLoggerWritesRequestLines: the JSON logger newLogger makes
// writes request lines itself, at its level, and one with attributes
// leaves them to slog, which puts the attributes in the line.
func TestJSONLoggerWritesRequestLines(t *testing.T) {
	var out bytes.Buffer
	logger, flush, err := newLogger(&out, "json", "info")
	if err != nil {
		t.Fatal(err)
	}
	h, ok := logger.Handler().(server.RequestLineHandler)
	if !ok {
		t.Fatalf("the JSON logger's handler %T writes no request line", logger.Handler())
	}
	if !h.HandleRequestLine(requestLines[0]) {
		t.Fatal("HandleRequestLine wrote nothing")
	}
	flush()
	var want bytes.Buffer
	if err := slog.NewJSONHandler(&want, nil).Handle(context.Background(), requestLines[0].Record()); err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Errorf("line:\n got %s\nwant %s", out.String(), want.String())
	}
	if _, ok := logger.With("service", "toolgate").Handler().(server.RequestLineHandler); ok {
		t.Error("a logger with attributes writes request lines without them")
	}
}
