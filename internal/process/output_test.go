package process

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func readAll(t *testing.T, o *Output) string {
	t.Helper()
	r, err := o.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != o.Size() {
		t.Errorf("Size %d, read %d bytes", o.Size(), len(b))
	}
	return string(b)
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		whole     bool
		first     string // first line kept
		last      string // last line kept
		notKept   string
		noteLines string
	}{
		{name: "short", in: "a\nb\n", whole: true},
		{name: "no final newline", in: "a\nb", whole: true},
		{name: "1000 lines", in: numbered(1000), whole: true},
		{name: "1001 lines", in: numbered(1001), first: "line 500\n", last: "line 1001\n", notKept: "line 501\n", noteLines: "[... 1 lines"},
		{name: "5000 lines", in: numbered(5000), first: "line 1\n", last: "line 4501\nline 4502\n", notKept: "line 2500\n", noteLines: "[... 4000 lines"},
		{name: "one huge line", in: strings.Repeat("x", 3<<20), first: "xxx", last: "xxx", noteLines: "[... 2.5 MB omitted ..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOutput(OutputLimits{Dir: t.TempDir()})
			defer o.Remove()
			for s := tc.in; len(s) > 0; { // in uneven writes
				n := min(len(s), 7777)
				o.Write([]byte(s[:n]))
				s = s[n:]
			}
			o.Close()
			got := o.Summary(SummaryLimits{Hint: "see elsewhere"})
			if tc.whole {
				if got != tc.in {
					t.Errorf("summary %q, want the whole output", got)
				}
				return
			}
			if len(got) > 512<<10+200 || strings.Count(got, "\n") > 1003 {
				t.Errorf("summary has %d bytes and %d lines: over the limits", len(got), strings.Count(got, "\n"))
			}
			if !strings.Contains(got, tc.first) || !strings.Contains(got, tc.last) {
				t.Errorf("summary lacks %q at the start or %q at the end", tc.first, tc.last)
			}
			if tc.notKept != "" && strings.Contains(got, tc.notKept) {
				t.Errorf("summary keeps %q from the middle", tc.notKept)
			}
			if !strings.Contains(got, tc.noteLines) || !strings.Contains(got, "see elsewhere]") {
				t.Errorf("summary note %q lacks %q or the hint", got[len(got)/2-300:len(got)/2+300], tc.noteLines)
			}
			if full := readAll(t, o); full != tc.in {
				t.Errorf("full output has %d bytes, want %d", len(full), len(tc.in))
			}
		})
	}
}

func TestOutputSpill(t *testing.T) {
	t.Run("small stays in memory", func(t *testing.T) {
		o := NewOutput(OutputLimits{Dir: t.TempDir()})
		o.Write([]byte("hello\n"))
		o.Close()
		if o.SpillFile() != "" {
			t.Errorf("spilled %q for 6 bytes", o.SpillFile())
		}
		if got := readAll(t, o); got != "hello\n" {
			t.Errorf("full %q", got)
		}
	})
	t.Run("capped keeps head note and tail", func(t *testing.T) {
		dir := t.TempDir()
		o := NewOutput(OutputLimits{Dir: dir, Memory: 1000, Tail: 500, Full: 10000})
		in := numbered(20000)
		o.Write([]byte(in))
		o.Close()
		full := readAll(t, o)
		if !strings.HasPrefix(full, in[:9000]) || !strings.HasSuffix(full, "line 20000\n") || !strings.Contains(full, "omitted: the full output is capped at") {
			t.Errorf("capped full output: %q ... %q", full[:50], full[len(full)-700:])
		}
		if len(full) > 10000+500+200 {
			t.Errorf("full output %d bytes, want at most cap+tail+note", len(full))
		}
		name := o.SpillFile()
		if err := o.Remove(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(name); !os.IsNotExist(err) {
			t.Errorf("spill file %s still exists after Remove: %v", name, err)
		}
	})
}

func TestStreamerChunks(t *testing.T) {
	t.Run("lines at once, partial after delay, runes whole", func(t *testing.T) {
		c := newChunks()
		k := &sink{out: NewOutput(OutputLimits{}), onChunk: c.add, live: bucket{rate: 1 << 30, burst: 1 << 30}}
		s := &streamer{name: "stdout", sink: k, delay: time.Millisecond}
		s.add([]byte("one\ntw"))
		if got := c.joined("stdout"); got != "one\n" {
			t.Errorf("after a newline, chunks %q, want %q", got, "one\n")
		}
		s.add([]byte("o \xe2\x82")) // half of a euro sign
		c.waitFor(t, "tw")
		s.add([]byte("\xac\n"))
		if got := c.joined("stdout"); got != "one\ntwo €\n" {
			t.Errorf("chunks %q", got)
		}
		for _, ch := range c.by["stdout"] {
			if !strings.HasSuffix(ch, "\n") && strings.ContainsRune(ch, '\uFFFD') {
				t.Errorf("chunk %q splits a rune", ch)
			}
		}
	})
	t.Run("rate budget notes what was not streamed", func(t *testing.T) {
		c := newChunks()
		k := &sink{out: NewOutput(OutputLimits{}), onChunk: c.add, live: bucket{rate: 1, burst: 10}}
		k.emit("stdout", []byte("12345678\n"))
		k.emit("stdout", []byte("too much\n"))
		k.live.tokens, k.live.last = 10, time.Now()
		k.emit("stdout", []byte("ok\n"))
		if got, want := c.joined("stdout"), "12345678\n[... 9 bytes not streamed live (too fast); the result has them ...]\nok\n"; got != want {
			t.Errorf("live %q, want %q", got, want)
		}
	})
}
