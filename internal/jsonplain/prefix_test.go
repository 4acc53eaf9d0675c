package jsonplain

import (
	"math/bits"
	"unicode/utf8"
)

// appendStringByPrefix is AppendString as it was before marks: the runs
// needing no escape found a word at a time (prefix), the scan starting
// again after each escape. The baseline of BenchmarkAppendString, and
// what FuzzAppendStringAgrees holds AppendString to.
func appendStringByPrefix(b []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += prefix(s[i:]); i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if !html && c >= 0x20 && c != '"' && c != '\\' { // <, > and &: as they are
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case html && c == '\b':
				b = append(b, '\\', 'b')
			case html && c == '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// prefix is the length of s's longest prefix of bytes encoding/json writes
// in a string as they are, with HTML escaping on: ASCII but for the
// control characters, '"', '\\', '<', '>' and '&'. A byte it stops at
// needs an escape or starts a multi-byte rune.
func prefix(s string) int {
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
