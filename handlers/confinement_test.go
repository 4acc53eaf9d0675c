package handlers

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// TestConfinement tries the escapes of SECURITY.md against every file tool:
// each must fail with a clear result, read nothing and write nothing
// outside the workspace.
func TestConfinement(t *testing.T) {
	f := newFixture(t)
	f.write(t, "sub/ok.txt", "fine\n")
	links := map[string]string{
		"abs_file":     filepath.Join(f.outside, "secret.txt"),
		"rel_file":     "../ws_evil/secret.txt",
		"abs_dir":      f.outside,
		"rel_dir":      "../ws_evil",
		"chain1":       "chain2",
		"chain2":       "../ws_evil/secret.txt",
		"dangling_out": "../ws_evil/nothing_here.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{
		"../ws_evil/secret.txt", "sub/../../ws_evil/secret.txt", filepath.Join(f.outside, "secret.txt"),
		"/etc/passwd", "abs_file", "rel_file", "abs_dir/secret.txt", "rel_dir/secret.txt", "chain1",
		"dangling_out", "a\x00b", strings.Repeat("a/", 3000) + "x", strings.Repeat("x", 64<<10),
	}
	for _, p := range paths {
		name := p
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run("read "+name, func(t *testing.T) {
			res, rec := f.call(t, "read_file", map[string]any{"path": p})
			if !res.IsError || strings.Contains(text(res), "SECRET") || rec.Status != api.StatusFailed {
				t.Errorf("read_file(%q) = %v %q, want a refusal", p, rec.Status, text(res))
			}
		})
		t.Run("write "+name, func(t *testing.T) {
			res, _ := f.call(t, "write_to_file", map[string]any{"path": p, "content": "pwned"})
			if !res.IsError {
				t.Errorf("write_to_file(%q) succeeded: %q", p, text(res))
			}
		})
		t.Run("list "+name, func(t *testing.T) {
			res, _ := f.call(t, "list_files", map[string]any{"path": p})
			if !res.IsError || strings.Contains(text(res), "SECRET") {
				t.Errorf("list_files(%q) = %q, want a refusal", p, text(res))
			}
		})
	}
	t.Run("nothing outside changed", func(t *testing.T) {
		entries, _ := os.ReadDir(f.outside)
		if len(entries) != 1 {
			t.Errorf("outside dir holds %d entries, want 1", len(entries))
		}
		got, _ := os.ReadFile(filepath.Join(f.outside, "secret.txt"))
		if string(got) != "TOP SECRET\n" {
			t.Errorf("secret changed: %q", got)
		}
	})
	t.Run("legal odd names work", func(t *testing.T) {
		for _, name := range []string{"..foo", "a..", "...", "sub/..bar"} {
			res, _ := f.call(t, "write_to_file", map[string]any{"path": name, "content": "ok " + name})
			if res.IsError {
				t.Fatalf("write %q: %s", name, text(res))
			}
			res, _ = f.call(t, "read_file", map[string]any{"path": name})
			if res.IsError || text(res) != "1 | ok "+name+"\n\n(File has 1 lines total.)" {
				t.Errorf("read %q = %q", name, text(res))
			}
		}
	})
	t.Run("absolute path inside works", func(t *testing.T) {
		res, _ := f.call(t, "read_file", map[string]any{"path": filepath.Join(f.dir, "sub/ok.txt")})
		if res.IsError || text(res) != "1 | fine\n\n(File has 1 lines total.)" {
			t.Errorf("got %q", text(res))
		}
	})
}

// TestSymlinkSwapRace swaps a workspace file with a symlink to an outside
// file while reads and writes run: nothing outside may leak or change.
func TestSymlinkSwapRace(t *testing.T) {
	f := newFixture(t)
	victim := filepath.Join(f.dir, "victim.txt")
	secret := filepath.Join(f.outside, "secret.txt")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(victim)
			_ = os.WriteFile(victim, []byte("inside\n"), 0o644)
			_ = os.Remove(victim)
			_ = os.Symlink(secret, victim)
		}
	}()
	var leaks atomic.Int32
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		res, _ := f.call(t, "read_file", map[string]any{"path": "victim.txt"})
		if strings.Contains(text(res), "SECRET") {
			leaks.Add(1)
		}
		f.call(t, "write_to_file", map[string]any{"path": "victim.txt", "content": "overwritten\n"})
	}
	close(stop)
	waitAll(t, &wg)
	if n := leaks.Load(); n != 0 {
		t.Errorf("outside file leaked %d times", n)
	}
	if got, _ := os.ReadFile(secret); string(got) != "TOP SECRET\n" {
		t.Errorf("outside file changed: %q", got)
	}
}
