package jsonplain

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// marksByBytes is marks a byte at a time: what it must agree with.
func marksByBytes(w uint64, html bool) uint64 {
	plain := &plainLog
	if html {
		plain = &plainHTML
	}
	var m uint64
	for k := range 8 {
		if !plain[byte(w>>(8*k))] {
			m |= 0x80 << (8 * k)
		}
	}
	return m
}

// TestMarks: marks marks exactly the bytes a byte-at-a-time test does,
// for every byte value at every position of a word, among fillers that
// a carry or a borrow between bytes would mark.
func TestMarks(t *testing.T) {
	for _, html := range []bool{true, false} {
		for c := range 256 {
			for at := range 8 {
				for _, filler := range []byte{'a', ' ', '~', 0x7f, 0x1f, 0x00, 0x80, 0xff, '"', '<', 0x5b, 0x5d} {
					w := uint64(filler) * ones
					w = w&^(0xff<<(8*at)) | uint64(c)<<(8*at)
					if got, want := marks(w, html), marksByBytes(w, html); got != want {
						t.Fatalf("marks(%#016x, %v) = %#016x, want %#016x", w, html, got, want)
					}
				}
			}
		}
	}
}

func FuzzMarks(f *testing.F) {
	for _, s := range []string{"plain te", "  1 | pa\n", `<a href=`, "émoji 🎉", "\x00\x1f\x7f\x80\xff\"\\&"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var word [8]byte
		copy(word[:], b)
		w := binary.LittleEndian.Uint64(word[:])
		for _, html := range []bool{true, false} {
			if got, want := marks(w, html), marksByBytes(w, html); got != want {
				t.Errorf("marks(%q, %v) = %#016x, want %#016x", word, html, got, want)
			}
		}
	})
}

// FuzzAppendStringAgrees: AppendString writes what it wrote before its
// words were tested whole (appendStringByPrefix), with and without html.
// The server's and the log's tests hold both to their encoders.
func FuzzAppendStringAgrees(f *testing.F) {
	for _, s := range []string{"", "plain text that runs on", "  1 | package main\n\tx := 1\n", `<a href="x">&amp;</a>`,
		"émoji 🎉 \u2028 \u2029", "\x00\x1f\x7f\x80\xff", "abcdefg\xe2\x80\xa8", strings.Repeat("17 | 0123456789abcde\n", 4)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			if got, want := AppendString(nil, s, html), appendStringByPrefix(nil, s, html); !bytes.Equal(got, want) {
				t.Errorf("AppendString(%q, %v) = %s, want %s", s, html, got, want)
			}
		}
	})
}

// TestAppendStringEveryOffset: each byte that needs an escape, and runes
// of several bytes, at every offset of a word and next to each other,
// written as before.
func TestAppendStringEveryOffset(t *testing.T) {
	odd := []string{"\"", "\\", "<", ">", "&", "\n", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "é", "\u2028", "\u2029", "\xff", "\xe2\x80", "🎉"}
	for _, c := range odd {
		for _, d := range odd {
			for at := range 20 {
				s := strings.Repeat("a", at) + c + d + strings.Repeat("b", 19-at) + c
				for _, html := range []bool{true, false} {
					if got, want := AppendString(nil, s, html), appendStringByPrefix(nil, s, html); !bytes.Equal(got, want) {
						t.Fatalf("AppendString(%q, %v) = %s, want %s", s, html, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkAppendString: a 1 KB read's text (a line of 21 bytes, its
// newline escaped) and a Go source file's (a tab after most newlines)
// quoted with each word's escapes found by one test (fast) against the
// plain runs found a word at a time, the word tested again after each
// escape (plain, appendStringByPrefix, the code before).
//
//	go test -run '^$' -bench AppendString ./internal/jsonplain/
func BenchmarkAppendString(b *testing.B) {
	for _, text := range []struct{ name, s string }{
		{"read", strings.Repeat("17 | 0123456789abcde\n", 64)},
		{"source", strings.Repeat("\tif err != nil {\n\t\treturn fmt.Errorf(\"read %s: %w\", name, err)\n\t}\n", 16)},
	} {
		b.Run("text="+text.name, func(b *testing.B) {
			buf := make([]byte, 0, 2*len(text.s))
			benchpair.Run(b, func() { buf = AppendString(buf[:0], text.s, true) }, func() { buf = appendStringByPrefix(buf[:0], text.s, true) })
		})
	}
}
