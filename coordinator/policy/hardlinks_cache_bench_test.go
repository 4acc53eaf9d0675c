package policy

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/ignore"
)

// BenchmarkHardLinkCache measures the policy stage's search for other
// names of denied files with a read deny rule matching at any depth
// (Read(**/.env)) on a workspace of 3,000 files in 150 directories:
// the kept answer (LinkCache, a stat of each directory) against the
// walks it saves (WithHardLinks), alternating, with the ratio.
func BenchmarkHardLinkCache(b *testing.B) {
	ws := linkBenchWorkspace(b)
	base := ignore.NewMatcher()
	denials := []string{"**/.env"}
	hidden := base.WithRules(ignore.ParseRules("deny", "", []byte("**/.env\n")))
	var lc LinkCache
	benchpair.Run(b, func() {
		lc.WithHardLinks(ws, base, hidden, denials)
	}, func() {
		WithHardLinks(ws, base, hidden, denials)
	})
	if lc.read.walks != 1 {
		b.Fatalf("%d walks, want 1", lc.read.walks)
	}
}

// BenchmarkHardLinkCacheEdit measures the policy stage's refusal of a
// write through a hard link to an edit-denied file (Edit(**/.env)) on the
// same workspace, for a write that goes through none: the kept answer
// (LinkCache.EditLinkDenial) against the walk every writing call made
// before it was kept (EditLinkDenial), alternating, with the ratio.
func BenchmarkHardLinkCacheEdit(b *testing.B) {
	ws := linkBenchWorkspace(b)
	type fileIn struct {
		Path string `json:"path"`
	}
	write := tool.NewTool(tool.Spec[fileIn]{
		Name: "write_to_file", Writes: true,
		Run: func(context.Context, *tool.Call, *fileIn) (tool.Result, error) { return tool.Result{}, nil },
	})
	sub := &Subject{Tool: write.Name, Paths: []PathRef{{Rel: "d3/e31/f7.go"}}}
	patterns := []string{"**/.env"}
	var lc LinkCache
	benchpair.Run(b, func() {
		if msg := lc.EditLinkDenial(ws, write, sub, patterns); msg != "" {
			b.Fatal(msg)
		}
	}, func() {
		if msg := EditLinkDenial(ws, write, sub, patterns); msg != "" {
			b.Fatal(msg)
		}
	})
	if lc.edit.walks != 1 {
		b.Fatalf("%d walks, want 1", lc.edit.walks)
	}
}

// BenchmarkEditDeniedPaths is what a sandboxed command's read-only list
// costs under an edit deny rule that matches at any depth, in the same
// workspace: the kept answer (LinkCache.EditDeniedPaths) against the
// walk each command made before it was kept (EditDeniedPaths),
// alternating, with the ratio.
func BenchmarkEditDeniedPaths(b *testing.B) {
	ws := linkBenchWorkspace(b)
	patterns := []string{"**/.env"}
	var lc LinkCache
	benchpair.Run(b, func() {
		if got := lc.EditDeniedPaths(ws, patterns); len(got) != 1 {
			b.Fatalf("listed %v, want the .env", got)
		}
	}, func() {
		if got := EditDeniedPaths(ws, patterns); len(got) != 1 {
			b.Fatalf("listed %v, want the .env", got)
		}
	})
	if lc.editPaths.walks != 1 {
		b.Fatalf("%d walks, want 1", lc.editPaths.walks)
	}
}

// linkBenchWorkspace is a workspace of 3,000 files in 150 directories
// and one .env, its directories' times an hour old (older than
// tool.StampRacy, so an answer is kept).
func linkBenchWorkspace(b *testing.B) *tool.Workspace {
	b.Helper()
	dir := b.TempDir()
	for d := range 150 {
		sub := filepath.Join(dir, fmt.Sprintf("d%d", d/10), fmt.Sprintf("e%d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 20 {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.go", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "d0", ".env"), []byte("KEY=1"), 0o600); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}
