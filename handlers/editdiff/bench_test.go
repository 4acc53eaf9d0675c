package editdiff

import (
	"fmt"
	"strings"
	"testing"
)

// bigFile is a 10,000-line Go-like file with distinct lines.
func bigFile() string {
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "\tvalue%d := compute(%d) // line %d\n", i, i*7, i)
	}
	return b.String()
}

func BenchmarkApply(b *testing.B) {
	file := bigFile()
	cases := []struct{ name, diff string }{
		{"exact near end", blk("\tvalue9990 := compute(69930) // line 9990", "\tchanged()")},
		{"line-trimmed near end", blk("value9990 := compute(69930) // line 9990", "\tchanged()")},
		{"not found, closest region scored", blk(
			"\tvalue5000 := compute(35000) // line 5000\n\tvalue5001 := compute(99999) // line 5001\n\tmissing()", "x")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = Apply(file, c.diff)
			}
		})
	}
}
