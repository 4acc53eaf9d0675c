package jsonplain

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// prefixByBytes is Prefix a byte at a time: what it replaces, and what it
// must agree with.
func prefixByBytes(s string) int {
	i := 0
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// TestPrefix: Prefix stops where a byte-at-a-time scan stops, for every
// byte value at every position of a word and past it.
func TestPrefix(t *testing.T) {
	for c := range 256 {
		for at := range 20 {
			for _, filler := range []byte{'a', ' ', '~', 0x7f} {
				b := []byte(strings.Repeat(string(filler), 20))
				b[at] = byte(c)
				s := string(b)
				if got, want := Prefix(s), prefixByBytes(s); got != want {
					t.Fatalf("Prefix(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
	// Bytes next to a match that a borrow could mark: the lowest wins.
	for _, s := range []string{"ab\x1f\x20cdefgh", "ab\x20\x1fcdefgh", "abc\x00\x01<&\"", "abcdefg\"\\", "=<=>!\"'&"} {
		if got, want := Prefix(s), prefixByBytes(s); got != want {
			t.Errorf("Prefix(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzPrefix(f *testing.F) {
	for _, s := range []string{"", "plain text that runs on", "  1 | package main\n", `<a href="x">&amp;</a>`, "émoji 🎉", "\x00\x1f\x7f\x80\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Prefix(s), prefixByBytes(s); got != want {
			t.Errorf("Prefix(%q) = %d, want %d", s, got, want)
		}
	})
}

// BenchmarkPrefix: the plain runs of a 1 KB read's text (a line of 21
// bytes, its newline escaped) found a word at a time against a byte at a
// time.
//
//	go test -run '^$' -bench Prefix ./internal/jsonplain/
func BenchmarkPrefix(b *testing.B) {
	text := strings.Repeat("17 | 0123456789abcde\n", 64)
	n := 0
	scan := func(prefix func(string) int) func() {
		return func() {
			for i := 0; i < len(text); i++ {
				i += prefix(text[i:])
				n++
			}
		}
	}
	benchpair.Run(b, scan(Prefix), scan(prefixByBytes))
}
