package main

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gcCycles are the collections a server with GODEBUG=gctrace=1 logged:
// the runtime writes one line per collection to its stderr, which
// startServer sends to the server's log file. A server binary needs no
// hook of its own for the benchmarks to see its heap.
type gcCycles struct {
	n       int
	live    float64       // the live heaps found, summed, in MB
	maxGoal float64       // the largest heap goal, in MB
	cpu     time.Duration // the collector's marking CPU time
}

// gcLine is a gctrace line: "gc 12 @1.2s 3%: 0.01+1.2+0.01 ms clock,
// 0.02+0.3/1.1/0.2+0.02 ms cpu, 40->41->20 MB, 48 MB goal, ...".
var gcLine = regexp.MustCompile(`^gc \d+ @[\d.]+s \d+%: [\d.+]+ ms clock, ([\d.+/]+) ms cpu, \d+->\d+->(\d+) MB, (\d+) MB goal`)

// logSize is how much the server has logged so far.
func (s *benchServer) logSize(b *testing.B) int64 {
	st, err := os.Stat(s.log)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

// collections are the gctrace lines logged between two log sizes. A line
// another write split is skipped.
func (s *benchServer) collections(b *testing.B, from, to int64) gcCycles {
	f, err := os.Open(s.log)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.NewSectionReader(f, from, to-from))
	if err != nil {
		b.Fatal(err)
	}
	var c gcCycles
	for line := range strings.Lines(string(data)) {
		m := gcLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		live, _ := strconv.ParseFloat(m[2], 64)
		goal, _ := strconv.ParseFloat(m[3], 64)
		c.n++
		c.live += live
		c.maxGoal = max(c.maxGoal, goal)
		// The marking's assist, background and idle CPU; the two
		// stop-the-world phases are counted as wall time times the
		// processors, waits for other load included, so they are left out.
		if f := strings.Split(m[1], "+"); len(f) == 3 {
			for _, ms := range strings.Split(f[1], "/") {
				v, _ := strconv.ParseFloat(ms, 64)
				c.cpu += time.Duration(v * float64(time.Millisecond))
			}
		}
	}
	return c
}

// meanLive is the mean live heap the collections found, in MB.
func (c gcCycles) meanLive() float64 { return c.live / float64(max(c.n, 1)) }
