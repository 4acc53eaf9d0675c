package server

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestClaudeBashKeepsDir: Claude Code's Bash starts a command where the
// last successful one cd'd to, a failed or subshell cd changes nothing,
// and a command in the kept
// directory is judged there, so a relative path into a denied directory
// is refused.
func TestClaudeBashKeepsDir(t *testing.T) {
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowBypassPermissions: true}}
	cfg.Permissions.Deny = []string{"Read(./secret/**)"}
	ts, dir := newDialectServer(t, cfg, map[string]string{"src/lib/a.txt": "a\n", "secret/key.txt": "k3y\n"})
	s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "bypassPermissions"})
	n := 0
	bash := func(command string) (string, api.CallStatus) {
		n++
		return callIn(t, ts, s.ID, fmt.Sprintf("toolu_dir%d", n), "Bash", map[string]any{"command": command})
	}
	for _, step := range []struct{ command, want string }{
		{"cd src && pwd", filepath.Join(dir, "src")},
		{"pwd", filepath.Join(dir, "src")},
		{"cd lib", ""},
		{"pwd", filepath.Join(dir, "src", "lib")},
		{"cd nowhere && pwd", "Exit code 1\n"},
		{"pwd", filepath.Join(dir, "src", "lib")},
		{"cd " + dir + " && pwd", dir},
		{"(cd src) && pwd", dir},
	} {
		out, st := bash(step.command)
		t.Logf("%s -> %s %q", step.command, st, out)
		if step.want != "" && out != step.want && !(step.want == "Exit code 1\n" && strings.HasPrefix(out, step.want)) {
			t.Errorf("%s = %q, want %q", step.command, out, step.want)
		}
	}
	if out, st := bash("cd secret"); st != api.StatusSucceeded {
		t.Fatalf("cd secret = %s %q", st, out)
	}
	if out, st := bash("cat key.txt"); st != api.StatusDenied || strings.Contains(out, "k3y") {
		t.Errorf("cat key.txt in secret/ = %s %q, want it denied", st, out)
	}
}
