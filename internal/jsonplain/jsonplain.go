// Package jsonplain quotes JSON strings as encoding/json or log/slog's
// JSONHandler writes them (AppendString), finding the bytes that need an
// escape eight at a time (marks): the server's answers and its request
// log line quote a tool's text, and most of that text needs no escape.
// Speed only: BenchmarkAppendString (./internal/jsonplain/),
// BenchmarkAppendJSONString (./server/), docs/benchmarks.md; TestMarks
// and FuzzMarks hold marks to a byte-at-a-time test, the server's and
// the log's fuzz tests AppendString to the two encoders.
package jsonplain

import "unicode/utf8"

const (
	ones  = 0x0101010101010101 // 0x01 in every byte of a word
	highs = 0x8080808080808080 // the high bit of every byte
	lows  = 0x7f7f7f7f7f7f7f7f // the other bits of every byte
)

// marks has the high bit set in each byte of w (the bytes of a string,
// the first the lowest) that an encoder writes otherwise than as it is:
// not ASCII, a control character, '"' or '\\', and with html '<', '>' and
// '&' too; no other bit is set. Each test works on the low seven bits of
// a byte, whose sums never carry into the next byte: a mark is exact,
// so the escapes of a word are all found with one test of it.
func marks(w uint64, html bool) uint64 {
	lo := w & lows
	// A high bit survives in each sum where the byte is not what is
	// tested for; the product of the sums keeps it where none matched.
	keep := (lo + 0x60*ones) & // at least 0x20: not a control character
		((lo ^ 0x5c*ones) + lows) // not '\\'
	if html {
		keep &= ((lo | 0x04*ones ^ 0x26*ones) + lows) & // neither '"' (0x22) nor '&' (0x26), one bit apart
			((lo | 0x02*ones ^ 0x3e*ones) + lows) // neither '<' (0x3c) nor '>' (0x3e), one bit apart
	} else {
		keep &= (lo ^ 0x22*ones) + lows // not '"'
	}
	return (w | ^keep) & highs
}

// plainHTML and plainLog mark the ASCII bytes marks leaves unmarked, with
// html and without, for a string's last few bytes, tested one at a time.
var plainHTML, plainLog = func() (h, l [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		l[c] = c != '"' && c != '\\'
		h[c] = l[c] && c != '<' && c != '>' && c != '&'
	}
	return h, l
}()
