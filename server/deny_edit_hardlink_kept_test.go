package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestEditDenyHardLinkMadeBetweenCalls: the other names of edit-denied
// files are kept between calls (policy.LinkCache), as the read-denied
// files' are; a hard link to a locked file made after some writes, from a
// directory the search for them does not read (outside
// Edit(./locked/**)'s root), is refused to the next Write all the same.
func TestEditDenyHardLinkMadeBetweenCalls(t *testing.T) {
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{
		"locked/a.txt": "original\n",
	})
	old := time.Now().Add(-time.Hour) // older than a racily clean stamp
	for _, d := range []string{"", "locked"} {
		if err := os.Chtimes(filepath.Join(dir, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "acceptEdits",
		"permissions": map[string]any{"deny": []string{"Edit(./locked/**)"}}}).ID
	for i := range 2 {
		name := "notes-" + string(rune('a'+i)) + ".txt"
		write := map[string]any{"file_path": filepath.Join(dir, name), "content": "notes\n"}
		if text, st := callIn(t, ts, sid, "toolu_ekept"+string(rune('a'+i)), "Write", write); st != api.StatusSucceeded {
			t.Fatalf("Write %s = %s %q, want it written", name, st, text)
		}
	}
	if err := os.Link(filepath.Join(dir, "locked", "a.txt"), filepath.Join(dir, "docs.txt")); err != nil {
		t.Fatal(err)
	}
	// Read first, so that nothing but the rule keeps the Write from
	// writing.
	if text, st := callIn(t, ts, sid, "toolu_ekeptr", "Read", map[string]any{"file_path": filepath.Join(dir, "docs.txt")}); st != api.StatusSucceeded {
		t.Fatalf("Read docs.txt = %s %q, want it read (only editing is denied)", st, text)
	}
	write := map[string]any{"file_path": filepath.Join(dir, "docs.txt"), "content": "pwned\n"}
	if text, st := callIn(t, ts, sid, "toolu_ekeptc", "Write", write); st != api.StatusDenied || !strings.Contains(text, "hard link") {
		t.Errorf("Write through the link made between calls = %s %q, want it refused as a hard link to a denied file", st, text)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "locked", "a.txt")); string(got) != "original\n" {
		t.Errorf("locked/a.txt = %q after a write through its hard link", got)
	}
}
