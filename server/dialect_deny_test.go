package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestReadDenyHoldsInEveryTool: a path a deny rule keeps from Read
// (Claude Code's Read(./secret/**)) is kept from every tool, as Claude
// Code keeps it: Grep and Glob leave it out, a command naming it is
// refused, a symlink alias does not lead to it, and the secret's content
// is in no result.
func TestReadDenyHoldsInEveryTool(t *testing.T) {
	const secret = "TOPSECRET-42"
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{
		"secret/key.txt": secret + "\n",
		"notes.txt":      "public notes\n",
	})
	if err := os.Symlink(filepath.Join(dir, "secret", "key.txt"), filepath.Join(dir, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code",
		"permissions": map[string]any{"deny": []string{"Read(./secret/**)"}, "allow": []string{"Bash"}}}).ID
	for i, tc := range []struct {
		name, tool string
		input      map[string]any
		// want is a text the result holds; denied whether the call is refused.
		want   string
		denied bool
	}{
		{"Read of the path", "Read", map[string]any{"file_path": filepath.Join(dir, "secret/key.txt")}, "Read(./secret/**)", true},
		{"Read through a symlink alias", "Read", map[string]any{"file_path": filepath.Join(dir, "alias.txt")}, "a link to", true},
		{"Grep of the workspace", "Grep", map[string]any{"pattern": "TOPSECRET", "output_mode": "content"}, "No matches found", false},
		{"Grep of the directory", "Grep", map[string]any{"pattern": "TOP", "path": "secret"}, "No files found", false},
		{"Glob of everything", "Glob", map[string]any{"pattern": "**/*"}, "notes.txt", false},
		{"cat in Bash", "Bash", map[string]any{"command": "cat secret/key.txt"}, "secret/key.txt", true},
		{"head through the alias in Bash", "Bash", map[string]any{"command": "head -1 alias.txt"}, "a link to", true},
		{"a search in Bash that names no path", "Bash", map[string]any{"command": "grep -r TOPSECRET . ; echo searched"}, "searched", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, st := callIn(t, ts, sid, "toolu_deny"+string(rune('a'+i)), tc.tool, tc.input)
			if strings.Contains(text, secret) {
				t.Fatalf("%s revealed the secret: %q", tc.tool, text)
			}
			if tc.tool == "Glob" && strings.Contains(text, "key.txt") {
				t.Errorf("Glob lists the denied file: %q", text)
			}
			if (st == api.StatusDenied) != tc.denied || !strings.Contains(text, tc.want) {
				t.Errorf("status %s, result %q; want denied=%v and a result holding %q", st, text, tc.denied, tc.want)
			}
		})
	}
}
