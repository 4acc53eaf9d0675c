package server

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// TestAppendJSONStringEveryOffset: appendJSONString writes encoding/json's
// bytes with each byte that needs an escape (and a multi-byte rune) at
// every offset of a word, where its scan a word at a time stops.
func TestAppendJSONStringEveryOffset(t *testing.T) {
	odd := []string{"\"", "\\", "<", ">", "&", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "\u2028", "\xff", "🎉"}
	for _, c := range odd {
		for at := range 20 {
			s := strings.Repeat("a", at) + c + strings.Repeat("b", 19-at) + c
			want, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
				t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
			}
		}
	}
}

// BenchmarkAppendJSONString: a text escaped with the bytes to escape
// found a word at a time (jsonplain.AppendString) against a byte at a
// time, the code it replaced: a 1 KB read's text (text=read, a line of 21 bytes) and a Go
// source file (text=source, encode.go: a tab after each newline).
//
//	go test -run '^$' -bench AppendJSONString ./server/
func BenchmarkAppendJSONString(b *testing.B) {
	src, err := os.ReadFile("encode.go")
	if err != nil {
		b.Fatal(err)
	}
	for _, text := range []struct{ name, s string }{{"read", strings.Repeat("17 | 0123456789abcde\n", 64)}, {"source", string(src)}} {
		b.Run("text="+text.name, func(b *testing.B) {
			buf := make([]byte, 0, 2*len(text.s))
			benchpair.Run(b, func() { buf = appendJSONString(buf[:0], text.s) }, func() { buf = appendJSONStringByBytes(buf[:0], text.s) })
		})
	}
}

// jsonPlain marks the ASCII bytes encoding/json writes in a string as
// they are: not a control character, a quote, a backslash, or one of the
// HTML characters <, > and & it escapes.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONStringByBytes is appendJSONString as it was, a byte at a
// time: the baseline of BenchmarkAppendJSONString.
func appendJSONStringByBytes(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
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
