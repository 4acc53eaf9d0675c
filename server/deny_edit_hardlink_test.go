package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestEditDenyHoldsForHardLinks: a hard link made in the workspace to a
// file Edit(./locked/**) denies is a second name of that file, and is
// kept from the editing tools as the first name is: Write and Edit
// through it are refused, saying why, while a file no rule covers is
// written, and the denied file keeps its content.
func TestEditDenyHoldsForHardLinks(t *testing.T) {
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{
		"locked/a.txt": "original\n",
	})
	if err := os.Link(filepath.Join(dir, "locked", "a.txt"), filepath.Join(dir, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "acceptEdits",
		"permissions": map[string]any{"deny": []string{"Edit(./locked/**)"}}}).ID
	alias := filepath.Join(dir, "alias.txt")
	// Read first, so that nothing but the rule keeps Write and Edit from
	// writing.
	if text, st := callIn(t, ts, sid, "toolu_elinkr", "Read", map[string]any{"file_path": alias}); st != api.StatusSucceeded {
		t.Fatalf("Read of the link = %s %q, want it read (only editing is denied)", st, text)
	}
	for i, tc := range []struct {
		name, tool string
		input      map[string]any
		want       api.CallStatus
	}{
		{"Write through the link", "Write", map[string]any{"file_path": alias, "content": "pwned\n"}, api.StatusDenied},
		{"Edit through the link", "Edit", map[string]any{"file_path": alias, "old_string": "original", "new_string": "pwned"}, api.StatusDenied},
		{"Write of a file no rule covers", "Write", map[string]any{"file_path": filepath.Join(dir, "new.txt"), "content": "new\n"}, api.StatusSucceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, st := callIn(t, ts, sid, "toolu_elink"+string(rune('a'+i)), tc.tool, tc.input)
			if st != tc.want {
				t.Errorf("status %s, result %q; want %s", st, text, tc.want)
			}
			if tc.want == api.StatusDenied && !strings.Contains(text, "hard link") {
				t.Errorf("result %q, want it to say the path is a hard link to a denied file", text)
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "locked", "a.txt")); string(got) != "original\n" {
		t.Errorf("locked/a.txt = %q after writes through its hard link", got)
	}
}
