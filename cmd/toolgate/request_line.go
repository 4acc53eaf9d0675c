package main

import (
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/internal/jsonplain"
	"github.com/toolgate/toolgate/server"
)

// requestLineHandler is the JSON log's handler as newLogger makes it
// (slog's JSONHandler without attributes, groups, ReplaceAttr or source,
// into the logBuffer): it writes the request log line, the most frequent,
// itself, in the bytes the JSONHandler writes for its record. Its
// WithAttrs and WithGroup are flushingHandler's: a logger with attributes
// writes its lines through slog. Speed only: BenchmarkRequestLineHandler
// (./cmd/toolgate/, docs/benchmarks.md); TestRequestLineAgrees and
// FuzzRequestLineAgrees hold the bytes to the JSONHandler's.
type requestLineHandler struct{ flushingHandler }

var _ server.RequestLineHandler = requestLineHandler{}

// HandleRequestLine writes l's line, or reports false for a time the
// JSONHandler writes otherwise (a year outside 0-9999, which it flags as
// an error in the line).
func (h requestLineHandler) HandleRequestLine(l server.RequestLine) bool {
	t := l.Time.Round(0) // as the JSONHandler: no monotonic reading
	if y := t.Year(); y < 0 || y >= 10000 || math.IsNaN(l.DurationMS) || math.IsInf(l.DurationMS, 0) {
		return false
	}
	var arr [320]byte
	b := append(arr[:0], `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = appendLogString(b, l.Level.String())
	b = append(b, `,"msg":"http request","request_id":`...)
	b = appendLogString(b, l.ID)
	b = append(b, `,"method":`...)
	b = appendLogString(b, l.Method)
	b = append(b, `,"path":`...)
	b = appendLogString(b, l.Path)
	b = append(b, `,"route":`...)
	b = appendLogString(b, l.Route)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(l.Status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(l.Bytes), 10)
	b = append(b, `,"duration_ms":`...)
	b = appendLogFloat(b, l.DurationMS)
	b = append(b, "}\n"...)
	_, _ = h.buf.Write(b) // the logBuffer's Write fails only in a flush, as the JSONHandler's would
	if l.Level >= slog.LevelWarn {
		h.buf.Flush()
	}
	return true
}

// appendLogString appends s quoted as slog's JSONHandler writes a string
// (jsonplain.AppendString without HTML escaping).
func appendLogString(b []byte, s string) []byte { return jsonplain.AppendString(b, s, false) }

// appendLogFloat writes a finite f as encoding/json does, which the
// JSONHandler calls for a float: the shortest decimal that reads back as
// f, in exponent form below 1e-6 and from 1e21 with a one-digit negative
// exponent.
func appendLogFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 -> e-7
		b = b[:n-1]
	}
	return b
}
