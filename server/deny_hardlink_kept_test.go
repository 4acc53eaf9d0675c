package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator"
)

// TestReadDenyHardLinkMadeBetweenCalls: the other names of denied files
// are kept between calls (policy.LinkCache); a hard link to the secret
// made after a call, from a directory the search for them does not read
// (outside Read(./secret/**)'s root), is left out of the next Glob all
// the same.
func TestReadDenyHardLinkMadeBetweenCalls(t *testing.T) {
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{
		"secret/key.txt": "LINKED-SECRET-8\n",
		"notes.txt":      "public notes\n",
	})
	old := time.Now().Add(-time.Hour) // older than a racily clean stamp
	for _, d := range []string{"", "secret"} {
		if err := os.Chtimes(filepath.Join(dir, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code",
		"permissions": map[string]any{"deny": []string{"Read(./secret/**)"}}}).ID
	glob := map[string]any{"pattern": "**/*"}
	for i := range 2 {
		if text, _ := callIn(t, ts, sid, "toolu_kept"+string(rune('a'+i)), "Glob", glob); !strings.Contains(text, "notes.txt") {
			t.Fatalf("Glob = %q, want notes.txt listed", text)
		}
	}
	if err := os.Link(filepath.Join(dir, "secret", "key.txt"), filepath.Join(dir, "docs.txt")); err != nil {
		t.Fatal(err)
	}
	text, _ := callIn(t, ts, sid, "toolu_keptc", "Glob", glob)
	if strings.Contains(text, "docs.txt") || !strings.Contains(text, "notes.txt") {
		t.Errorf("Glob after the link = %q, want notes.txt listed and the link left out", text)
	}
}
