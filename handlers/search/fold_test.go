package search

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestLowerASCII(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	// Every byte value at every alignment, through the eight-byte path and
	// the tail.
	for shift := range 9 {
		src := append(bytes.Repeat([]byte{'Q'}, shift), all...)
		dst := make([]byte, len(src))
		lowerASCII(dst, src)
		for i, c := range src {
			want := c
			if 'A' <= c && c <= 'Z' {
				want = c + 32
			}
			if dst[i] != want {
				t.Fatalf("shift %d: byte %#x lowered to %#x, want %#x", shift, c, dst[i], want)
			}
		}
	}
}

// TestFoldedMatchesAtWindowEdges puts case variants of the pattern's
// literal across every offset around the edges of the lowered window and
// checks the matched lines against the regexp run on each line.
func TestFoldedMatchesAtWindowEdges(t *testing.T) {
	for _, pattern := range []string{`(?i)deadline exceeded`, `(?i)kelvin \w+`, `(?i:dead)line|STATUS`} {
		m, err := newMatcher(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if !m.fold {
			t.Fatalf("%s: no folded literal", pattern)
		}
		variants := []string{"DEADLINE EXCEEDED", "Deadline exceeded", "\u212Aelvin one", "KELVIN two", "deadLINE", "status", "kelvi"}
		for _, v := range variants {
			for pad := foldWindow - 24; pad < foldWindow+4; pad++ {
				text := strings.Repeat("y", pad) + v + "\nfiller\n" + v + "\n" + strings.Repeat("z", foldWindow) + " " + v
				var want, got []string
				for i, line := range strings.Split(text, "\n") {
					if m.line.MatchString(line) {
						want = append(want, fmt.Sprint(i))
					}
				}
				buf := []byte(text)
				m.matchLines(buf, func(start, end int) {
					got = append(got, fmt.Sprint(bytes.Count(buf[:start], []byte{'\n'})))
				})
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Fatalf("%s, %q after %d bytes: lines %v, want %v", pattern, v, pad, got, want)
				}
			}
		}
	}
}

func TestIndexSkipsFilesForCaseInsensitivePatterns(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "alpha beta\n", "b.txt": "Gamma DELTA\n", "c/d.txt": "alpha gamma\n"})
	root := openRoot(t, dir)
	ix := settledIndex(0)
	for range 2 {
		indexed(t, root, ix, Options{Regex: "alpha"})
	}
	before := ix.reads.Load()
	got := indexed(t, root, ix, Options{Regex: "(?i)gamma delta"})
	if reads := ix.reads.Load() - before; reads != 1 {
		t.Errorf("search read %d files, want 1 (the only one whose summary allows the literal in any case)", reads)
	}
	if want := []string{"b.txt:1"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("matches = %v, want %v", got, want)
	}
}

// TestIndexPair checks the vector search for a byte pair against a plain
// loop: every distance and alignment, hits at the block edges, both cases
// of letters and exact non-letters.
func TestIndexPair(t *testing.T) {
	naive := func(b []byte, d int, c1, m1, c2, m2 byte) int {
		for i := 0; i+d < len(b); i++ {
			if b[i]|m1 == c1 && b[i+d]|m2 == c2 {
				return i
			}
		}
		return -1
	}
	text := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog; ", 3))
	for _, pair := range [][2]byte{{'x', 'd'}, {'q', 'q'}, {' ', 'f'}, {';', ' '}, {'z', '#'}} {
		c1, m1 := foldMask(pair[0])
		c2, m2 := foldMask(pair[1])
		for d := range 20 {
			for at := range 70 {
				for _, upper := range []bool{false, true} {
					b := append([]byte(nil), text[at:]...)
					if upper {
						b = bytes.ToUpper(b)
					}
					if got, want := indexPair(b, d, c1, m1, c2, m2), naive(b, d, c1, m1, c2, m2); got != want {
						t.Fatalf("pair %q d %d at %d upper %v: %d, want %d", pair, d, at, upper, got, want)
					}
				}
			}
		}
	}
	// A letter's other case is the only other byte that matches it.
	for c := range 256 {
		b := []byte(strings.Repeat(".", 40))
		b[33] = byte(c)
		want := -1
		if c == 'k' || c == 'K' {
			want = 33
		}
		if got := indexPair(b, 0, 'k', 0x20, 'k', 0x20); got != want {
			t.Fatalf("byte %#x: %d, want %d", c, got, want)
		}
	}
}

// TestExactLiteralScans puts each literal of exact patterns (one literal,
// an alternation, a literal the regexp must confirm) at every offset
// around the pair scan's 16-byte blocks and the buffer's ends, and checks
// the matched lines against the regexp run on each line.
func TestExactLiteralScans(t *testing.T) {
	for _, c := range []struct{ pattern, hit string }{
		{`ServeHTTP`, "ServeHTTP"},
		{`err != nil`, "if err != nil {"},
		{`x`, "x"},
		{`Hijacker|CloseNotifier`, "Hijacker"},
		{`Hijacker|CloseNotifier`, "a CloseNotifier"},
		{`TODO|FIXME|XX`, "XX"},
		{`\bRoundTrip\b`, "RoundTrip("},
		{`\bRoundTrip\b`, "RoundTripper"},
		{`func \w+Error\(`, "func newError("},
	} {
		m, err := newMatcher(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if m.fold || len(m.lits) == 0 {
			t.Fatalf("%s: no exact literal", c.pattern)
		}
		for pad := range 40 {
			for _, tail := range []string{"", "\n", "\nServeHTTX ServeHTT\n", "\nHijacke CloseNotifie Round"} {
				text := strings.Repeat("S", pad) + c.hit + "\nerr != ni\n" + strings.Repeat("e", pad%17) + c.hit + tail
				var want, got []string
				for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
					if m.line.MatchString(line) {
						want = append(want, fmt.Sprint(i))
					}
				}
				buf := []byte(text)
				m.matchLines(buf, func(start, end int) {
					got = append(got, fmt.Sprint(bytes.Count(buf[:start], []byte{'\n'})))
				})
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Fatalf("%s, %q after %d bytes: lines %v, want %v", c.pattern, c.hit, pad, got, want)
				}
			}
		}
	}
}
