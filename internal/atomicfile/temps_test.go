package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestWriteFailureLeavesNoDebris(t *testing.T) {
	for _, stage := range []string{"open", "write", "sync", "rename"} {
		t.Run(stage, func(t *testing.T) {
			root, ws, _ := workspace(t)
			writeFile(t, filepath.Join(ws, "d", "f.txt"), "old", 0o644)
			boom := errors.New("injected")
			err := write(root, "d/f.txt", []byte("new"), 0o644, nil, func(s string) error {
				if s == stage {
					return boom
				}
				return nil
			})
			if !errors.Is(err, boom) {
				t.Fatalf("error: got %v, want the injected one", err)
			}
			if got := readFile(t, filepath.Join(ws, "d", "f.txt")); got != "old" {
				t.Errorf("target: got %q, want %q", got, "old")
			}
			if got := listDir(t, filepath.Join(ws, "d")); !slices.Equal(got, []string{"f.txt"}) {
				t.Errorf("directory: got %v, want only f.txt", got)
			}
		})
	}
}

func TestWriteRemovesStaleTempsOfItsTarget(t *testing.T) {
	root, ws, _ := workspace(t)
	old := time.Now().Add(-2 * StaleAge)
	stale := ".f.txt.toolgate-0123456789abcdef.tmp"
	fresh := ".f.txt.toolgate-fedcba9876543210.tmp"
	other := ".g.txt.toolgate-0123456789abcdef.tmp"
	for _, n := range []string{stale, fresh, other} {
		writeFile(t, filepath.Join(ws, n), "partial", 0o644)
	}
	for _, n := range []string{stale, other} {
		if err := os.Chtimes(filepath.Join(ws, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(root, "f.txt", []byte("x"), 0o644); err != nil {
		t.Fatalf("Write: %v", err)
	}
	want := []string{fresh, other, "f.txt"}
	slices.Sort(want)
	if got := listDir(t, ws); !slices.Equal(got, want) {
		t.Errorf("after Write: got %v, want %v (stale temp of f.txt removed, others kept)", got, want)
	}
	removed, err := SweepTemps(context.Background(), root, 0, 1000)
	if err != nil {
		t.Fatalf("SweepTemps: %v", err)
	}
	slices.Sort(removed)
	if wantRemoved := []string{fresh, other}; !slices.Equal(removed, wantRemoved) {
		t.Errorf("SweepTemps removed %v, want %v", removed, wantRemoved)
	}
	if got := listDir(t, ws); !slices.Equal(got, []string{"f.txt"}) {
		t.Errorf("after SweepTemps: got %v, want only f.txt", got)
	}
}

func TestIsTemp(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{".f.txt.toolgate-0123456789abcdef.tmp", true},
		{"..toolgate-0123456789abcdef.tmp", false},
		{".a.toolgate-0123456789abcdeg.tmp", false},
		{".a.toolgate-0123456789abcde.tmp", false},
		{"a.toolgate-0123456789abcdef.tmp", false},
		{".a.toolgate-0123456789ABCDEF.tmp", false},
		{".a.toolgate-0123456789abcdef.tmpx", false},
		{".a.tmp", false},
		{tempName("report.md"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsTemp(tc.name); got != tc.want {
				t.Errorf("IsTemp(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

// TestWriteVerifiedRefusesUnknownRealPath: when the real path of the
// directory written to cannot be read, a verified write once went ahead
// unchecked. It is refused and the file is unchanged.
func TestWriteVerifiedRefusesUnknownRealPath(t *testing.T) {
	root, ws, _ := workspace(t)
	writeFile(t, filepath.Join(ws, "d", "f.txt"), "old", 0o644)
	verified := false
	err := write(root, "d/f.txt", []byte("new"), 0o644, func(string) error { verified = true; return nil }, func(s string) error {
		if s == "realpath" {
			return errors.New("/proc is not mounted")
		}
		return nil
	})
	if !errors.Is(err, ErrUnverified) {
		t.Fatalf("error: got %v, want ErrUnverified", err)
	}
	if verified {
		t.Error("verify was called without a real path")
	}
	if got := readFile(t, filepath.Join(ws, "d", "f.txt")); got != "old" {
		t.Errorf("target: got %q, want it unchanged", got)
	}
	if got := listDir(t, filepath.Join(ws, "d")); !slices.Equal(got, []string{"f.txt"}) {
		t.Errorf("directory: got %v, want only f.txt", got)
	}
}
