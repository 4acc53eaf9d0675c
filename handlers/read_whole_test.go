package handlers

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// appendLinesText is read_file's answer as appendLines makes it for any
// window: note, a newline and the lines, or the lines alone. It is the
// text wholeWindow must match, and the plain side of BenchmarkReadWhole.
func appendLinesText(note string, br *bufio.Reader, in *ReadFileInput) string {
	buf := textBuffers.Get().(*[]byte)
	defer textBuffers.Put(buf)
	lines, err := appendLines((*buf)[:0], br, in)
	*buf = lines[:0]
	if err != nil {
		panic(err)
	}
	if note == "" {
		return string(lines)
	}
	var text strings.Builder
	text.Grow(len(note) + 1 + len(lines))
	text.WriteString(note)
	text.WriteByte('\n')
	text.Write(lines)
	return text.String()
}

// FuzzWholeWindow: where wholeWindowOf takes a window, its text is
// appendLines' byte for byte.
func FuzzWholeWindow(f *testing.F) {
	f.Add([]byte("a\nb\nc"), 0, 0, "")
	f.Add([]byte("one\r\ntwo\r\n"), 1, 0, "[File already read] x")
	f.Add([]byte("\r"), 0, 5, "")
	f.Add([]byte(""), 0, 0, "note")
	f.Add([]byte("\n\n\n"), -3, 3, "")
	f.Add([]byte(strings.Repeat("x\n", 1000)), 1, 1000, "")
	f.Add([]byte(strings.Repeat("x\n", 1001)), 0, 0, "")
	f.Add(bytes.Repeat([]byte("\n"), 50000), 0, 60000, "")
	f.Fuzz(func(t *testing.T, data []byte, start, end int, note string) {
		in := &ReadFileInput{StartLine: start, EndLine: end}
		w, ok := wholeWindowOf(data, in)
		if !ok {
			return
		}
		got := w.text(note, data)
		want := appendLinesText(note, bufio.NewReader(bytes.NewReader(data)), in)
		if got != want {
			t.Fatalf("wholeWindow = %q\nappendLines = %q", got, want)
		}
	})
}

// TestWholeWindowTakes: the windows that show a whole file are made by
// wholeWindow, the others left to appendLines.
func TestWholeWindowTakes(t *testing.T) {
	for _, c := range []struct {
		data       string
		start, end int
		want       bool
	}{
		{"a\nb\n", 0, 0, true},
		{"a\nb\n", 1, 2, true},
		{"a\nb", 0, 2, true},
		{"a\nb\n", 2, 0, false},
		{"a\nb\n", 1, 1, false},
		{"a\nb\n", 3, 1, true}, // swapped: lines 1 to 3
		{strings.Repeat("x\n", 1001), 0, 0, false},
		{strings.Repeat("\n", 60000), 0, 60000, false}, // over the window's bytes once numbered
	} {
		_, ok := wholeWindowOf([]byte(c.data), &ReadFileInput{StartLine: c.start, EndLine: c.end})
		if ok != c.want {
			t.Errorf("wholeWindowOf(%.20q, %d, %d) = %v, want %v", c.data, c.start, c.end, ok, c.want)
		}
	}
}

// TestWholeWindowOneAllocation: the answer's size is counted right, so
// its text is one allocation (a file with CRs gets a byte more a CR).
func TestWholeWindowOneAllocation(t *testing.T) {
	for _, data := range []string{strings.Repeat("0123456789abcde\n", 64), "a\r\nb\r\nc", strings.Repeat("y\n", 999) + "last"} {
		b := []byte(data)
		w, ok := wholeWindowOf(b, &ReadFileInput{})
		if !ok {
			t.Fatalf("%.20q: not a whole window", data)
		}
		if n := testing.AllocsPerRun(10, func() { _ = w.text("a note", b) }); n != 1 {
			t.Errorf("%.20q: %v allocations, want 1", data, n)
		}
	}
}

// BenchmarkReadWhole makes read_file's answer to a 1 KB file of 64 lines
// read a third time (Cline's duplicate-read note before the lines), the
// file already in the line reader's buffer as the first fill leaves it:
// with wholeWindow and, side by side, as appendLines makes it (the lines
// gathered in a recycled buffer, then copied after the note).
//
//	go test -run '^$' -bench ReadWhole -benchtime 200000x ./handlers/
func BenchmarkReadWhole(b *testing.B) {
	data := []byte(strings.Repeat("0123456789abcde\n", 64))
	note := repeatedReadNote
	in := &ReadFileInput{Path: "one_kb.txt"}
	var r bytes.Reader
	br := bufio.NewReaderSize(nil, 64<<10)
	fill := func() {
		r.Reset(data)
		br.Reset(&r)
		if _, err := br.Peek(512); err != nil {
			b.Fatal(err)
		}
	}
	var sink string
	benchpair.Run(b, func() {
		fill()
		whole, _ := br.Peek(br.Buffered())
		w, ok := wholeWindowOf(whole, in)
		if !ok {
			b.Fatal("not a whole window")
		}
		sink = w.text(note, whole)
	}, func() {
		fill()
		sink = appendLinesText(note, br, in)
	})
	if !strings.HasSuffix(sink, "64 | 0123456789abcde\n\n(File has 64 lines total.)") {
		b.Fatalf("answer %q", sink)
	}
}

const repeatedReadNote = "[DUPLICATE READ] You have already read 'one_kb.txt' 3 times in this conversation. " +
	"The content has not changed since your last read. Please use the information you already have and proceed with your task."
