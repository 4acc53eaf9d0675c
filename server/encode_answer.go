package server

import (
	"math"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/jsonplain"
)

// The answers of calls (api.ToolUseResponse, api.MessageResponse) are the
// most frequent JSON toolgate writes, and mostly a tool's text. They are
// appended here field by field, in the bytes encoding/json's Encoder
// writes for them (field order, omitempty, HTML-safe escaping, its float
// and time formats, the newline), without reflection or an encoder's
// state. Speed only: BenchmarkEncodeAnswer (./server/,
// docs/benchmarks.md); TestEncodeFastAgrees and FuzzEncodeFastAgrees hold
// the bytes to encoding/json's, TestAnswerFieldsKnown fails when one of
// these types gains a field this file does not write.

// appendAnswer appends v and a newline to b as encoding/json's Encoder
// writes it, and reports whether it could: v must be one of the two
// answer types, and a duration encoding/json refuses (NaN, an infinity)
// or a time it formats otherwise is left to it.
func appendAnswer(b []byte, v any) ([]byte, bool) {
	var ok bool
	switch v := v.(type) {
	case api.ToolUseResponse:
		b, ok = appendToolUseResponse(b, &v)
	case api.MessageResponse:
		b, ok = appendMessageResponse(b, &v)
	}
	return append(b, '\n'), ok
}

func appendToolUseResponse(b []byte, v *api.ToolUseResponse) ([]byte, bool) {
	b = append(b, `{"result":`...)
	b = appendToolResult(b, &v.Result)
	b = append(b, `,"call":`...)
	b, ok := appendCallRecord(b, &v.Call)
	return append(b, '}'), ok
}

func appendMessageResponse(b []byte, v *api.MessageResponse) ([]byte, bool) {
	b = append(b, `{"message_id":`...)
	b = appendJSONString(b, v.MessageID)
	b = append(b, `,"message":{"role":`...)
	b = appendJSONString(b, v.Message.Role)
	b = append(b, `,"content":`...)
	if v.Message.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range v.Message.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendToolResult(b, &v.Message.Content[i])
		}
		b = append(b, ']')
	}
	b = append(b, `},"calls":`...)
	if v.Calls == nil {
		return append(b, "null}"...), true
	}
	b = append(b, '[')
	for i := range v.Calls {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendCallRecord(b, &v.Calls[i]); !ok {
			return b, false
		}
	}
	return append(b, "]}"...), true
}

func appendToolResult(b []byte, r *api.ToolResult) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, r.Type)
	b = append(b, `,"tool_use_id":`...)
	b = appendJSONString(b, r.ToolUseID)
	b = append(b, `,"content":`...)
	if r.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendContent(b, &r.Content[i])
		}
		b = append(b, ']')
	}
	b = append(b, `,"is_error":`...)
	return append(strconv.AppendBool(b, r.IsError), '}')
}

func appendContent(b []byte, c *api.Content) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, c.Type)
	if c.Text != "" {
		b = append(b, `,"text":`...)
		b = appendJSONString(b, c.Text)
	}
	if s := c.Source; s != nil {
		b = append(b, `,"source":{"type":`...)
		b = appendJSONString(b, s.Type)
		b = append(b, `,"media_type":`...)
		b = appendJSONString(b, s.MediaType)
		b = append(b, `,"data":`...)
		b = appendJSONString(b, s.Data)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendCallRecord(b []byte, r *api.CallRecord) ([]byte, bool) {
	b = append(b, `{"tool_use_id":`...)
	b = appendJSONString(b, r.ToolUseID)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, r.Name)
	if r.MessageID != "" {
		b = append(b, `,"message_id":`...)
		b = appendJSONString(b, r.MessageID)
	}
	b = append(b, `,"state":`...)
	b = appendJSONString(b, string(r.State))
	if r.Status != "" {
		b = append(b, `,"status":`...)
		b = appendJSONString(b, string(r.Status))
	}
	if r.StartedAt != nil {
		var ok bool
		b = append(b, `,"started_at":`...)
		if b, ok = appendJSONTime(b, *r.StartedAt); !ok {
			return b, false
		}
	}
	b = append(b, `,"duration_ms":`...)
	b, ok := appendJSONFloat(b, r.DurationMS)
	if e := r.Error; e != nil {
		b = append(b, `,"error":{"code":`...)
		b = appendJSONString(b, e.Code)
		b = append(b, `,"message":`...)
		b = appendJSONString(b, e.Message)
		b = append(b, '}')
	}
	return append(b, '}'), ok
}

// appendJSONTime is time.Time's MarshalJSON for the times it writes as
// RFC 3339 with nanoseconds: a year of four digits and a zone offset in
// whole minutes under a day (toolgate's times are UTC); any other is left
// to encoding/json, which refuses some of them.
func appendJSONTime(b []byte, t time.Time) ([]byte, bool) {
	_, off := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}

// appendJSONFloat writes f as encoding/json does a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21
// with a one-digit negative exponent; NaN and the infinities it refuses.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 -> e-7
		b = b[:n-1]
	}
	return b, true
}

// appendJSONString appends s quoted as encoding/json writes a string with
// HTML escaping on (jsonplain.AppendString; BenchmarkAppendJSONString,
// ./server/).
func appendJSONString(b []byte, s string) []byte { return jsonplain.AppendString(b, s, true) }
