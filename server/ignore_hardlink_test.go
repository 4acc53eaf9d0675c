package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestIgnoredFileStaysHiddenThroughHardLinks: `.env` is .clineignored and
// docs.txt is a hard link to it (a second name no rule covers); key.txt
// is a hard link to a file outside the workspace. Neither secret comes
// back from read_file, Read, Grep naming the link or searching the
// workspace, or an auto-approved `cat` of the link, in the cline and
// claude_code dialects; the links are refused, and a file with one name
// still reads.
func TestIgnoredFileStaysHiddenThroughHardLinks(t *testing.T) {
	const ignoredSecret, outsideSecret = "IGNORED-LINK-SECRET-8", "OUTSIDE-LINK-SECRET-9"
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{
		".clineignore": ".env\n",
		".env":         ignoredSecret + "\n",
		"notes.txt":    "public notes\n",
	})
	if err := os.Link(filepath.Join(dir, ".env"), filepath.Join(dir, "docs.txt")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(outside, []byte(outsideSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(dir, "key.txt")); err != nil {
		t.Skipf("the temporary directory is on another file system than the workspace: %v", err)
	}
	cline := newSessionOf(t, ts, map[string]any{"mode": "act", "permissions": map[string]any{"allow": []string{"replace_in_file"}}}).ID
	claude := newSessionOf(t, ts, map[string]any{"dialect": "claude_code",
		"permissions": map[string]any{"allow": []string{"Bash", "Read", "Grep"}}}).ID
	type step struct {
		name, sid, tool string
		input           map[string]any
		refused         bool
		// shows says the outside file may be shown: commands may read
		// outside the workspace, as they may without a link.
		shows bool
	}
	steps := []step{
		{"read_file of the ignored link", cline, "read_file", map[string]any{"path": "docs.txt"}, true, false},
		{"read_file of the outside link", cline, "read_file", map[string]any{"path": "key.txt"}, true, false},
		{"read_file of a file with one name", cline, "read_file", map[string]any{"path": "notes.txt"}, false, false},
		{"search_files of the workspace", cline, "search_files", map[string]any{"path": ".", "regex": "SECRET"}, false, false},
		{"replace_in_file of the ignored link", cline, "replace_in_file", map[string]any{"path": "docs.txt",
			"diff": "------- SEARCH\nnot in the file\n=======\nanything\n+++++++ REPLACE\n"}, true, false},
		{"replace_in_file of the outside link", cline, "replace_in_file", map[string]any{"path": "key.txt",
			"diff": "------- SEARCH\nnot in the file\n=======\nanything\n+++++++ REPLACE\n"}, true, false},
		{"cat of the ignored link", cline, "execute_command", map[string]any{"command": "cat docs.txt", "requires_approval": false}, true, false},
		{"Read of the ignored link", claude, "Read", map[string]any{"file_path": filepath.Join(dir, "docs.txt")}, true, false},
		{"Read of the outside link", claude, "Read", map[string]any{"file_path": filepath.Join(dir, "key.txt")}, true, false},
		{"Grep of the ignored link", claude, "Grep", map[string]any{"pattern": "SECRET", "path": "docs.txt", "output_mode": "content"}, true, false},
		{"Grep of the workspace", claude, "Grep", map[string]any{"pattern": "SECRET", "output_mode": "content"}, false, false},
		{"cat of the ignored link in Bash", claude, "Bash", map[string]any{"command": "cat docs.txt"}, true, false},
		{"grep -r of the workspace", cline, "execute_command", map[string]any{"command": "grep -r SECRET . ; echo searched", "requires_approval": false}, false, true},
		{"grep -r of the workspace in Bash", claude, "Bash", map[string]any{"command": "grep -r SECRET . ; echo searched"}, false, true},
	}
	for i, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			text, st := callIn(t, ts, tc.sid, "toolu_hl"+string(rune('a'+i)), tc.tool, tc.input)
			for _, secret := range []string{ignoredSecret, outsideSecret} {
				if strings.Contains(text, secret) && (secret == ignoredSecret || !tc.shows) {
					t.Fatalf("%s revealed %s through a hard link: %q", tc.tool, secret, text)
				}
			}
			if tc.shows && !strings.Contains(text, "searched") {
				t.Errorf("the search did not run: %q", text)
			}
			refused := st == api.StatusDenied || st == api.StatusFailed
			if refused != tc.refused {
				t.Errorf("status %s, result %q; want refused=%v", st, text, tc.refused)
			}
		})
	}
}

// TestWorldReadableHardLinkIsRead: package stores (pnpm's, uv's) hard-link
// their files, readable by every user, into node_modules and .venv. Such a
// link is read like any workspace file; only a file private to its owner
// (a key, credentials) is refused for having a name outside.
func TestWorldReadableHardLinkIsRead(t *testing.T) {
	const content = "module.exports = 42 // package store\n"
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{"notes.txt": "notes\n"})
	store := filepath.Join(t.TempDir(), "index.js")
	if err := os.WriteFile(store, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(store, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "node_modules", "answer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(store, filepath.Join(dir, "node_modules", "answer", "index.js")); err != nil {
		t.Skipf("the temporary directory is on another file system than the workspace: %v", err)
	}
	sid := newSessionOf(t, ts, map[string]any{"mode": "act"}).ID
	text, st := callIn(t, ts, sid, "toolu_wr1", "read_file", map[string]any{"path": "node_modules/answer/index.js"})
	if st != api.StatusSucceeded || !strings.Contains(text, "package store") {
		t.Fatalf("read_file of a world-readable hard link: status %s, %q", st, text)
	}
}
