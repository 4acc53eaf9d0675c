package jsonplain

import "unicode/utf8"

// AppendString appends s quoted as a JSON string, in the bytes one of two
// encoders writes: with html, encoding/json's (HTML escaping on: \" \\ \b
// \f \n \r \t, \u00XX for the other control characters and <, >, &);
// without, log/slog's JSONHandler's (<, > and & as they are, \u0008 and
// \u000c for \b and \f). Both write \ufffd for each byte of invalid UTF-8
// and escape \u2028 and \u2029. The runs between escapes are found a word
// at a time (Prefix). The server's answers use the first, its request log
// line the second; their tests hold each to its encoder.
func AppendString(b []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += Prefix(s[i:]); i == len(s) {
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
