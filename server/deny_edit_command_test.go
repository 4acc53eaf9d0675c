package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestEditDenyHoldsInCommands: a path Edit(locked/**) denies is not
// writable by commands either: in the default sandbox an approved command
// (bypassPermissions approves every command) can neither overwrite,
// append to, remove nor add a file there, while the rest of the
// workspace stays writable.
func TestEditDenyHoldsInCommands(t *testing.T) {
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowBypassPermissions: true}}
	ts, dir := newDialectServer(t, cfg, map[string]string{"locked/a.txt": "original\n", "locked/deep/b.txt": "deep\n", "open.txt": "open\n"})
	if mode := ts.coord.SandboxInfo().Mode; mode != sandbox.InForceBwrap && mode != sandbox.InForceLandlock {
		t.Skipf("no sandbox here (%s)", mode)
	}
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "bypassPermissions",
		"permissions": map[string]any{"deny": []string{"Edit(locked/**)"}}}).ID
	for i, command := range []string{
		"echo pwned > locked/a.txt",
		"echo pwned >> locked/deep/b.txt",
		"echo new > locked/new.txt",
		"rm -f locked/a.txt",
		"cp open.txt locked/deep/b.txt",
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
	if _, err := os.Stat(filepath.Join(dir, "locked", "new.txt")); err == nil {
		t.Errorf("a command made locked/new.txt")
	}
}
