package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/atomicfile"
)

// A start-up removes what writes cut short before it left in the
// workspace, and keeps a temporary file young enough to be in use.
func TestStartSweepsLeftOverTemps(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "src", ".main.go.toolgate-0123456789abcdef.tmp")
	young := filepath.Join(dir, ".notes.md.toolgate-fedcba9876543210.tmp")
	for _, p := range []string{stale, young} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * atomicfile.StaleAge)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	inst := start(t, dir)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(inst.stderr.String(), "left-over temporary files removed") {
		if time.Now().After(deadline) {
			t.Fatalf("no sweep logged; stderr:\n%s", inst.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temp: %v, want removed", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("young temp: %v, want kept", err)
	}
}
