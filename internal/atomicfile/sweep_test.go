package atomicfile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestSweepTemps(t *testing.T) {
	root, ws, _ := workspace(t)
	old := time.Now().Add(-2 * StaleAge)
	files := map[string]struct{ old, removed bool }{
		"a.txt":                                {old: true},
		".a.txt.toolgate-0123456789abcdef.tmp": {old: true, removed: true},
		"d/e/.b.go.toolgate-00112233445566ff.tmp":       {old: true, removed: true},
		"d/.c.toolgate-fedcba9876543210.tmp":            {}, // fresh: a write may be in progress
		"d/.c.toolgate-notatemp.tmp":                    {old: true},
		"node_modules/.x.toolgate-0123456789abcdef.tmp": {old: true}, // not swept
	}
	for p, f := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, full, "partial", 0o644)
		if f.old {
			if err := os.Chtimes(full, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	removed, err := SweepTemps(context.Background(), root, StaleAge, 1000)
	if err != nil {
		t.Fatalf("SweepTemps: %v", err)
	}
	slices.Sort(removed)
	want := []string{".a.txt.toolgate-0123456789abcdef.tmp", "d/e/.b.go.toolgate-00112233445566ff.tmp"}
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for p, f := range files {
		_, err := os.Stat(filepath.Join(ws, filepath.FromSlash(p)))
		if gone := err != nil; gone != f.removed {
			t.Errorf("%s: gone %v, want %v", p, gone, f.removed)
		}
	}
	t.Run("stops at the entry limit", func(t *testing.T) {
		p := filepath.Join(ws, ".a.txt.toolgate-0123456789abcdef.tmp")
		writeFile(t, p, "partial", 0o644)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		if removed, _ := SweepTemps(context.Background(), root, StaleAge, 1); len(removed) != 0 {
			t.Errorf("removed %v past a limit of one entry", removed)
		}
	})
}
