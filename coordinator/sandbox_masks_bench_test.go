package coordinator

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// BenchmarkIgnoredMasks lists the masks of a command's sandbox in a
// workspace of 50 directories of 20 files with .clineignore rules, as
// every sandboxed command does: walked afresh (ignoredPaths) and from the
// kept listing (maskCache), alternating, and reports both times per
// command and their ratio.
//
//	go test -run '^$' -bench IgnoredMasks ./coordinator/
func BenchmarkIgnoredMasks(b *testing.B) {
	dir := b.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range 50 {
		d := filepath.Join(dir, fmt.Sprintf("pkg%d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 20 {
			name := fmt.Sprintf("f%d.go", j)
			if j == 0 {
				name = "local.env"
			}
			if err := os.WriteFile(filepath.Join(d, name), []byte("x"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.Chtimes(d, old, old); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Chtimes(dir, old, old); err != nil {
		b.Fatal(err)
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	m := envRules()
	var mc maskCache
	var walked, kept time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, _, err := ignoredPaths(ws, m); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		paths, err := mc.ignored(ws, m)
		if err != nil || len(paths) != 50 {
			b.Fatalf("%d masks, %v", len(paths), err)
		}
		walked, kept = walked+t1.Sub(t0), kept+time.Since(t1)
	}
	b.ReportMetric(float64(walked.Microseconds())/float64(b.N), "walk_µs/run")
	b.ReportMetric(float64(kept.Microseconds())/float64(b.N), "kept_µs/run")
	b.ReportMetric(float64(kept)/float64(walked), "ratio")
}
