package server

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// encodeTexts are tool texts for TestEncodeFastAgrees and the seed of
// FuzzEncodeFastAgrees: what encoding/json escapes (HTML, control
// characters, U+2028, invalid UTF-8) and what it leaves.
var encodeTexts = []string{
	"", "plain text", "  1 | package main\n  2 | \n  3 | func main() {}\n",
	`<script>alert("x&y")</script>`, "tab\there\r\nand \x00\x01\x1f\x7f",
	"line\u2028sep\u2029para", "bad \xff\xfe utf-8 \xc3", "émoji 🎉 中文", `back\slash "quote" /slash`,
}

// encodeDurations are call durations with the float formats encoding/json
// switches between.
var encodeDurations = []float64{0, 0.123, 1, 12.5, 1e-7, 123456789.25, 1e21, 1e-6, math.MaxFloat64, -0.5}

func answers(text string, ms float64) []any {
	at := time.Date(2026, 12, 2, 7, 55, 1, 123456789, time.FixedZone("x", 3600))
	rec := api.CallRecord{ToolUseID: "toolu_" + text, Name: "read_file", State: api.StateDone, Status: api.StatusSucceeded, StartedAt: &at, DurationMS: ms}
	failed := rec
	failed.Status, failed.StartedAt, failed.MessageID = api.StatusFailed, nil, "msg_1"
	failed.Error = &api.ErrorDetail{Code: "not_found", Message: text}
	image := api.ToolResult{Type: api.TypeToolResult, ToolUseID: "t", Content: []api.Content{
		api.TextContent(text), {Type: "image", Source: &api.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBOR+/="}}}}
	return []any{
		api.ToolUseResponse{Result: api.NewToolResult("toolu_1", text, false), Call: rec},
		api.ToolUseResponse{Result: api.NewToolResult("toolu_1", text, true), Call: failed},
		api.ToolUseResponse{Result: api.ToolResult{Type: api.TypeToolResult}, Call: api.CallRecord{}},
		api.ToolUseResponse{Result: image, Call: rec},
		api.MessageResponse{MessageID: "msg_" + text, Message: api.UserMessage{Role: "user", Content: []api.ToolResult{image, api.NewToolResult("t2", text, false)}},
			Calls: []api.CallRecord{rec, failed}},
		api.MessageResponse{},
	}
}

// TestEncodeFastAgrees: the answers encode writes with appendAnswer
// are byte for byte what encoding/json's Encoder writes.
func TestEncodeFastAgrees(t *testing.T) {
	for _, text := range encodeTexts {
		for _, ms := range encodeDurations {
			checkEncodeAgrees(t, text, ms)
		}
	}
}

func FuzzEncodeFastAgrees(f *testing.F) {
	for i, text := range encodeTexts {
		f.Add(text, encodeDurations[i%len(encodeDurations)])
	}
	f.Fuzz(func(t *testing.T, text string, ms float64) {
		if math.IsNaN(ms) || math.IsInf(ms, 0) {
			ms = 0 // no duration is either, and encoding/json refuses both
		}
		checkEncodeAgrees(t, text, ms)
	})
}

func checkEncodeAgrees(t *testing.T, text string, ms float64) {
	t.Helper()
	for _, v := range answers(text, ms) {
		eb := newEncodeBuffer()
		if err := eb.encode(v); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(eb.buf.Bytes(), want.Bytes()) {
			t.Errorf("%T:\n got %s\nwant %s", v, eb.buf.Bytes(), want.Bytes())
		}
	}
}

// TestAnswerFieldsKnown: appendAnswer writes every field of the answer
// types; a field added to one of them must be added there too (and here).
func TestAnswerFieldsKnown(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeFor[api.ToolUseResponse](): {"result", "call"},
		reflect.TypeFor[api.MessageResponse](): {"message_id", "message", "calls"},
		reflect.TypeFor[api.UserMessage]():     {"role", "content"},
		reflect.TypeFor[api.ToolResult]():      {"type", "tool_use_id", "content", "is_error"},
		reflect.TypeFor[api.Content]():         {"type", "text,omitempty", "source,omitempty"},
		reflect.TypeFor[api.ImageSource]():     {"type", "media_type", "data"},
		reflect.TypeFor[api.CallRecord](): {"tool_use_id", "name", "message_id,omitempty", "state", "status,omitempty",
			"started_at,omitempty", "duration_ms", "error,omitempty"},
		reflect.TypeFor[api.ErrorDetail](): {"code", "message"},
	}
	for typ, want := range known {
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Tag.Get("json"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v's fields: got %q, want %q (appendAnswer writes these)", typ, got, want)
		}
	}
}

// TestEncodeAnswerOddValues: the times and durations appendAnswer leaves
// to encoding/json (a year past 9999, an offset with seconds, NaN) come
// out as encoding/json writes or refuses them.
func TestEncodeAnswerOddValues(t *testing.T) {
	times := []time.Time{
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("lmt", 561)),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("far", 30*3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 1, time.FixedZone("w", -5*3600)),
	}
	for _, at := range times {
		for _, ms := range []float64{1, math.NaN(), math.Inf(-1)} {
			v := api.ToolUseResponse{Result: api.NewToolResult("t", "x", false), Call: api.CallRecord{StartedAt: &at, DurationMS: ms}}
			eb := newEncodeBuffer()
			err := eb.encode(v)
			var want bytes.Buffer
			wantErr := json.NewEncoder(&want).Encode(v)
			if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(eb.buf.Bytes(), want.Bytes()) {
				t.Errorf("%v, %v: got %q (%v), want %q (%v)", at, ms, eb.buf.Bytes(), err, want.Bytes(), wantErr)
			}
		}
	}
}
