package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestReadDenyHoldsForHardLinks: a hard link made in the workspace to a
// file Read(./secret/**) denies is a second name of the secret, and is
// kept from every tool as the first name is: Read refuses it, Grep and
// Glob leave it out, and a command reading it (a real process in the
// default sandbox) is refused or finds it masked. The secret's content
// is in no result, and what names why a path was left out or refused
// names the permission rule, not .clineignore.
func TestReadDenyHoldsForHardLinks(t *testing.T) {
	const secret = "LINKED-SECRET-7"
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{
		"secret/key.txt": secret + "\n",
		"notes.txt":      "public notes\n",
	})
	if err := os.Link(filepath.Join(dir, "secret", "key.txt"), filepath.Join(dir, "docs.txt")); err != nil {
		t.Fatal(err)
	}
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code",
		"permissions": map[string]any{"deny": []string{"Read(./secret/**)"}, "allow": []string{"Bash"}}}).ID
	for i, tc := range []struct {
		name, tool string
		input      map[string]any
		denied     bool
	}{
		{"Read of the link", "Read", map[string]any{"file_path": filepath.Join(dir, "docs.txt")}, true},
		{"Grep of the workspace", "Grep", map[string]any{"pattern": "LINKED", "output_mode": "content"}, false},
		{"Grep of the link", "Grep", map[string]any{"pattern": "LINKED", "path": "docs.txt", "output_mode": "content"}, true},
		{"Glob of everything", "Glob", map[string]any{"pattern": "**/*"}, false},
		{"cat of the link in Bash", "Bash", map[string]any{"command": "cat docs.txt"}, true},
		{"a search in Bash that names no path", "Bash", map[string]any{"command": "grep -r LINKED . ; echo searched"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, st := callIn(t, ts, sid, "toolu_link"+string(rune('a'+i)), tc.tool, tc.input)
			if strings.Contains(text, secret) {
				t.Fatalf("%s revealed the secret through the hard link: %q", tc.tool, text)
			}
			if strings.Contains(text, ".clineignore") {
				t.Errorf("%s blames .clineignore, which this workspace does not have: %q", tc.tool, text)
			}
			if tc.tool == "Glob" && (strings.Contains(text, "docs.txt") || !strings.Contains(text, "notes.txt")) {
				t.Errorf("Glob = %q, want notes.txt listed and the link left out", text)
			}
			if (st == api.StatusDenied) != tc.denied {
				t.Errorf("status %s, result %q; want denied=%v", st, text, tc.denied)
			}
		})
	}
}
