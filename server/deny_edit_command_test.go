package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestEditDenyHoldsInCommands: a path Edit(locked/**) denies is not
// writable by commands either: in the default sandbox an approved command
// (bypassPermissions approves every command) can neither overwrite,
// append to, remove nor add a file there, nor write through a hard link
// made to a file there (neither can Write), while the rest of the
// workspace stays writable.
func TestEditDenyHoldsInCommands(t *testing.T) {
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowBypassPermissions: true}}
	ts, dir := newDialectServer(t, cfg, map[string]string{"locked/a.txt": "original\n", "locked/deep/b.txt": "deep\n", "open.txt": "open\n"})
	if mode := ts.coord.SandboxInfo().Mode; mode != sandbox.InForceBwrap && mode != sandbox.InForceLandlock {
		t.Skipf("no sandbox here (%s)", mode)
	}
	if err := os.Link(filepath.Join(dir, "locked", "a.txt"), filepath.Join(dir, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "bypassPermissions",
		"permissions": map[string]any{"deny": []string{"Edit(locked/**)"}}}).ID
	for i, command := range []string{
		"echo pwned > locked/a.txt",
		"echo pwned >> locked/deep/b.txt",
		"echo new > locked/new.txt",
		"rm -f locked/a.txt",
		"cp open.txt locked/deep/b.txt",
		"echo pwned > alias.txt",
		"echo changed > open.txt",
	} {
		text, st := callIn(t, ts, sid, "toolu_edeny"+string(rune('a'+i)), "Bash", map[string]any{"command": command})
		t.Logf("%s: %s %q", command, st, text)
	}
	for name, want := range map[string]string{"locked/a.txt": "original\n", "locked/deep/b.txt": "deep\n", "open.txt": "changed\n"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
	if text, st := callIn(t, ts, sid, "toolu_edeny_w", "Write", map[string]any{"file_path": filepath.Join(dir, "alias.txt"), "content": "pwned\n"}); st != api.StatusDenied {
		t.Errorf("Write through a hard link to a denied file: %s %q", st, text)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "locked", "a.txt")); string(got) != "original\n" {
		t.Errorf("locked/a.txt = %q after writes through its hard link", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "locked", "new.txt")); err == nil {
		t.Errorf("a command made locked/new.txt")
	}
}
