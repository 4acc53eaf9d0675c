package main

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// gcCycles are the collections a server with GODEBUG=gctrace=1 logged:
// the runtime writes one line per collection to its stderr, which
// startServer sends to the server's log file. A server binary needs no
// hook of its own for the benchmarks to see its heap.
type gcCycles struct {
	n       int
	live    float64 // the live heaps found, summed, in MB
	maxGoal float64 // the largest heap goal, in MB
}

// gcLine is a gctrace line: "gc 12 @1.2s 3%: 0.01+1.2+0.01 ms clock,
// 0.02+0.3/1.1/0.2+0.02 ms cpu, 40->41->20 MB, 48 MB goal, ...". Its CPU
// times are not used: the runtime counts them as its workers' wall time,
// which on a loaded machine is far above their CPU time.
var gcLine = regexp.MustCompile(`^gc \d+ @[\d.]+s \d+%: [\d.+]+ ms clock, [\d.+/]+ ms cpu, \d+->\d+->(\d+) MB, (\d+) MB goal`)

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
		live, _ := strconv.ParseFloat(m[1], 64)
		goal, _ := strconv.ParseFloat(m[2], 64)
		c.n++
		c.live += live
		c.maxGoal = max(c.maxGoal, goal)
	}
	return c
}

// meanLive is the mean live heap the collections found, in MB.
func (c gcCycles) meanLive() float64 { return c.live / float64(max(c.n, 1)) }
