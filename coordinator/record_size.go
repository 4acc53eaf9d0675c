package coordinator

import (
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
)

// resultJSONSize is len(json.Marshal(res)), counted without encoding: the
// size a call's record gives for a result it does not keep (a read's).
// Encoding 1.3 KB of text only to count it was most of what not keeping
// it saves (BenchmarkResultJSONSize, ./coordinator/). It follows
// api.ToolResult's and api.Content's JSON tags; TestResultJSONSize holds
// it to encoding/json.
//
// eventlog.ResultSize, the texts' and data's bytes, is not the same
// number: it bounds what sessions and event windows hold, several times
// a call, at the cost of a few additions; result_bytes is documented as
// the size of the whole tool_result (openapi.yaml), the number a kept
// result's record takes from its encoding (boundResult). Counted once a
// call, here, it costs 1.6 µs a 1 KB read (perf, 16 connections).
func resultJSONSize(res *api.ToolResult) int {
	n := len(`{"type":,"tool_use_id":,"content":,"is_error":}`) + jsonStringSize(res.Type) + jsonStringSize(res.ToolUseID)
	if res.IsError {
		n += len("true")
	} else {
		n += len("false")
	}
	if res.Content == nil {
		return n + len("null")
	}
	n += len("[]") + max(len(res.Content)-1, 0) // brackets and commas
	for i := range res.Content {
		c := &res.Content[i]
		n += len(`{"type":}`) + jsonStringSize(c.Type)
		if c.Text != "" {
			n += len(`,"text":`) + jsonStringSize(c.Text)
		}
		if s := c.Source; s != nil {
			n += len(`,"source":{"type":,"media_type":,"data":}`) + jsonStringSize(s.Type) + jsonStringSize(s.MediaType) + jsonStringSize(s.Data)
		}
	}
	return n
}

// jsonStringSize is the size of s as encoding/json writes it: quoted,
// with HTML characters, control characters, invalid UTF-8 and the line
// and paragraph separators escaped.
func jsonStringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			n += int(asciiJSONSize[b])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6 // \ufffd, \u2028, \u2029
		} else {
			n += size
		}
		i += size
	}
	return n
}

// asciiJSONSize is how many bytes encoding/json writes for each ASCII
// byte: 2 for the short escapes, 6 for \u00XX (other control characters
// and the HTML ones), 1 for the rest.
var asciiJSONSize = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		switch {
		case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
			t[b] = 2
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			t[b] = 6
		default:
			t[b] = 1
		}
	}
	return t
}()
