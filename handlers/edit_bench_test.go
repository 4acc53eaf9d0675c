package handlers

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect/cline"
)

// BenchmarkReadFileRecord compares read_file of the first window of a
// 10 MB file with and without recording its state (which hashes the rest
// of the file).
func BenchmarkReadFileRecord(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 10<<20 {
		fmt.Fprintf(&sb, "line %d of a fairly ordinary source file, some code here\n", sb.Len())
	}
	ws := workspaceWith(b, map[string]string{"big.txt": sb.String()})
	for _, record := range []bool{false, true} {
		b.Run(fmt.Sprintf("record=%v", record), func(b *testing.B) {
			call := &tool.Call{Workspace: ws, Texts: cline.Texts{}}
			if record {
				call.Files = coordinator.NewFileMemory(coordinator.DefaultConfig())
			}
			b.SetBytes(10 << 20)
			for b.Loop() {
				if _, err := readFile(context.Background(), call, &ReadFileInput{Path: "big.txt"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReplaceInFile edits one line of a 10,000-line file: read, guard,
// apply, atomic write with fsync, diff.
func BenchmarkReplaceInFile(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	ws := workspaceWith(b, map[string]string{"f.txt": sb.String()})
	call := editCall(ws, "toolu_1")
	diffs := []string{block("line 5000\n", "LINE 5000\n"), block("LINE 5000\n", "line 5000\n")}
	i := 0
	for b.Loop() {
		if _, err := replaceInFile(call, &ReplaceInFileInput{Path: "f.txt", Diff: diffs[i%2]}, false); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
