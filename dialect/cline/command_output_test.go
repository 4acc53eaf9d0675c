package cline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/process"
)

// outputOf writes chunks into an Output, as the pipes' reads come.
func outputOf(t *testing.T, lim process.OutputLimits, chunks ...string) process.Ends {
	t.Helper()
	lim.Dir = t.TempDir()
	o := process.NewOutput(lim)
	for _, c := range chunks {
		_, _ = o.Write([]byte(c))
	}
	_ = o.Close()
	t.Cleanup(func() { _ = o.Remove() })
	return o.Ends()
}

func numberedOutput(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "output line %d\n", i)
	}
	return b.String()
}

// TestClineCommandOutput holds the shapes real Cline (cline@2.18.0's
// standalone terminal) gives output, as the conformance harness saw them.
func TestClineCommandOutput(t *testing.T) {
	const where = "/v1/sessions/s/calls/c/output"
	tests := []struct {
		name    string
		chunks  []string
		first   int // chunks in Cline's first read (firstChunk)
		lim     process.OutputLimits
		want    string
		spilled bool
	}{
		{name: "empty line after the first chunk", chunks: []string{"out\n", "err\n"}, first: 1, want: "out\n\nerr"},
		{name: "one chunk", chunks: []string{"hello\n"}, first: 1, want: "hello"},
		{name: "line ends trimmed", chunks: []string{"a  \r\nb\t\n", "c\n"}, first: 1, want: "a\nb\n\nc"},
		{name: "prompt artifact of a last partial line", chunks: []string{"50%"}, first: 1, want: "50"},
		{name: "partial first chunk", chunks: []string{"par", "tial\nnext\n"}, first: 1, want: "partial\nnext"},
		{name: "past 500 lines", chunks: []string{numberedOutput(1, 600)}, first: 1,
			want: strings.TrimSuffix(numberedOutput(1, 250), "\n") + "\n... (output truncated) ...\n" + strings.TrimSuffix(numberedOutput(352, 600), "\n")}, // the empty line after the one chunk is the 601st
		{name: "past 1000 lines", chunks: []string{numberedOutput(1, 240), numberedOutput(241, 3000)}, first: 1, spilled: true,
			want: numberedOutput(1, 100) + "\n... (2801 lines written to " + where + ") ...\n\n" + strings.TrimSuffix(numberedOutput(2901, 3000), "\n")},
		{name: "past 1000 lines, kept on disk", chunks: []string{numberedOutput(1, 240), numberedOutput(241, 3000)}, first: 1, spilled: true,
			lim:  process.OutputLimits{Memory: 8 << 10, Tail: 4 << 10},
			want: numberedOutput(1, 100) + "\n... (2801 lines written to " + where + ") ...\n\n" + strings.TrimSuffix(numberedOutput(2901, 3000), "\n")},
		// One stream of 10,000 lines: Cline's first read takes 64 KB, so
		// its empty line falls in the lines written to the log.
		{name: "first read at most 64 KB", chunks: []string{numberedOutput(1, 10000)}, first: 1, spilled: true,
			want: numberedOutput(1, 100) + "\n... (9801 lines written to " + where + ") ...\n\n" + strings.TrimSuffix(numberedOutput(9901, 10000), "\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var first int64
			for _, c := range tc.chunks[:tc.first] {
				first += int64(len(c))
			}
			got, spilled := commandOutput(outputOf(t, tc.lim, tc.chunks...), first, where)
			if got != tc.want || spilled != tc.spilled {
				t.Errorf("spilled %v, want %v; %s", spilled, tc.spilled, diffLineT(got, tc.want))
			}
		})
	}
}

// diffLineT says where two texts part, briefly.
func diffLineT(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("at byte %d: got %q, want %q", i, got[i:min(len(got), i+80)], want[i:min(len(want), i+80)])
}
