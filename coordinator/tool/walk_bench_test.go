package tool

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// BenchmarkWalkEntries walks a workspace of 20 directories of 20 files,
// each two levels down, by WalkEntries and, side by side, by fs.WalkDir
// over Root.FS(), as the policy's walk for other names of denied files
// did before.
//
//	go test -run '^$' -bench WalkEntries -benchtime 200x ./coordinator/tool/
func BenchmarkWalkEntries(b *testing.B) {
	dir := b.TempDir()
	for i := range 20 {
		sub := filepath.Join(dir, "src", fmt.Sprintf("pkg%d", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 20 {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.go", j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	const entries = 20*21 + 1
	benchpair.Run(b, func() {
		n := 0
		ws.WalkEntries(".", func(string, fs.DirEntry) bool { n++; return true })
		if n != entries {
			b.Fatalf("visited %d entries, want %d", n, entries)
		}
	}, func() {
		n := 0
		_ = fs.WalkDir(ws.Root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if p != "." {
				n++
			}
			return nil
		})
		if n != entries {
			b.Fatalf("visited %d entries, want %d", n, entries)
		}
	})
}
