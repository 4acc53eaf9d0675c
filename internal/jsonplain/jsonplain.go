// Package jsonplain quotes JSON strings as encoding/json or log/slog's
// JSONHandler writes them (AppendString), finding the runs that need no
// escape eight bytes at a time (Prefix): the server's answers and its
// request log line quote a tool's text, and most of that text needs no
// escape. Speed only: BenchmarkPrefix (./internal/jsonplain/),
// BenchmarkAppendJSONString (./server/), docs/benchmarks.md; TestPrefix
// and FuzzPrefix hold Prefix to a byte-at-a-time scan, the server's and
// the log's fuzz tests AppendString to the two encoders.
package jsonplain

import (
	"math/bits"
	"unicode/utf8"
)

const (
	ones  = 0x0101010101010101 // 0x01 in every byte of a word
	highs = 0x8080808080808080 // the high bit of every byte
)

// Prefix is the length of s's longest prefix of bytes encoding/json writes
// in a string as they are, with HTML escaping on: ASCII but for the
// control characters, '"', '\\', '<', '>' and '&'. A byte it stops at
// needs an escape or starts a multi-byte rune.
func Prefix(s string) int {
	n := len(s)
	for len(s) >= 8 {
		// Little-endian whatever the machine: the first byte is the
		// lowest. The compiler loads it as one word.
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if m := escapes(w); m != 0 {
			return n - len(s) + bits.TrailingZeros64(m)/8
		}
		s = s[8:]
	}
	i := 0
	for i < len(s) && plain[s[i]] {
		i++
	}
	return n - len(s) + i
}

// escapes has the high bit set in the lowest byte of w that is not plain,
// and none below it (bytes above it may be marked whatever they are): each
// test below marks its lowest match exactly, a borrow reaching only the
// bytes above it.
func escapes(w uint64) uint64 {
	m := w & highs                            // not ASCII
	m |= (w - 0x20*ones) &^ w                 // below 0x20
	m |= zeroBytes(w ^ 0x5c*ones)             // '\\'
	m |= zeroBytes(w | 0x04*ones ^ 0x26*ones) // '"' (0x22) and '&' (0x26), one bit apart
	m |= zeroBytes(w | 0x02*ones ^ 0x3e*ones) // '<' (0x3c) and '>' (0x3e), one bit apart
	return m & highs
}

// zeroBytes has the high bit set in v's lowest zero byte, none below it.
func zeroBytes(v uint64) uint64 {
	return (v - ones) &^ v
}

// plain marks the ASCII bytes Prefix passes over.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()
