package jsonplain

import (
	"math/bits"
	"unicode/utf8"
)

// AppendString appends s quoted as a JSON string, in the bytes one of two
// encoders writes: with html, encoding/json's (HTML escaping on: \" \\ \b
// \f \n \r \t, \u00XX for the other control characters and <, >, &);
// without, log/slog's JSONHandler's (<, > and & as they are, \u0008 and
// \u000c for \b and \f). Both write \ufffd for each byte of invalid UTF-8
// and escape \u2028 and \u2029. The bytes to escape are found a word at a
// time (marks), all of a word's at once: a text with a newline every
// twenty bytes is tested about once a word, not again after each escape.
// The server's answers use the first, its request log line the second;
// their tests hold each to its encoder.
func AppendString(b []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	plain := &plainLog
	if html {
		plain = &plainHTML
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if len(s)-i >= 8 {
			// Little-endian whatever the machine: the first byte is the
			// lowest. The compiler loads it as one word.
			t := s[i : i+8]
			w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
				uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
			m := marks(w, html)
			for m != 0 {
				j := i + bits.TrailingZeros64(m)/8
				c := s[j]
				if c >= utf8.RuneSelf {
					break
				}
				b = append(b, s[start:j]...)
				b = appendEscape(b, c, html)
				start = j + 1
				m &= m - 1
			}
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8 // a rune of more than a byte starts here
		} else {
			for i < len(s) && plain[s[i]] {
				i++
			}
			if i == len(s) {
				break
			}
			if c := s[i]; c < utf8.RuneSelf {
				b = append(b, s[start:i]...)
				b = appendEscape(b, c, html)
				i++
				start = i
				continue
			}
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

// appendEscape appends the escape of the ASCII byte c, one marks marks.
func appendEscape(b []byte, c byte, html bool) []byte {
	const hex = "0123456789abcdef"
	switch {
	case c == '"' || c == '\\':
		return append(b, '\\', c)
	case c == '\n':
		return append(b, '\\', 'n')
	case c == '\r':
		return append(b, '\\', 'r')
	case c == '\t':
		return append(b, '\\', 't')
	case html && c == '\b':
		return append(b, '\\', 'b')
	case html && c == '\f':
		return append(b, '\\', 'f')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}
