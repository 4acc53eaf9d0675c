package policy

import (
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
	defer ws.Close()
	base := ignore.NewMatcher()
	denials := []string{"**/.env"}
	hidden := base.WithRules(ignore.ParseRules("deny", "", []byte("**/.env\n")))
	var lc LinkCache
	benchpair.Run(b, func() {
		lc.WithHardLinks(ws, base, hidden, denials)
	}, func() {
		WithHardLinks(ws, base, hidden, denials)
	})
	if lc.walks != 1 {
		b.Fatalf("%d walks, want 1", lc.walks)
	}
}
