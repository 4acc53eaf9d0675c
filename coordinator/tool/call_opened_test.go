package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/ignore"
)

// TestCheckOpenedFailsClosed: when the real path of an opened file cannot
// be read, the check on the handle once let the read go on, judged by the
// name the call gave. A handle whose path the kernel no longer tells (here
// a closed one, as a swapped-in link to .env would be judged) is refused,
// and one it tells is judged where it really is.
func TestCheckOpenedFailsClosed(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{".env": "API_KEY=sk-live-4f2a", "notes.txt": "n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	call := &Call{Workspace: ws}
	call.Attach(Runtime{Ignored: ignore.NewMatcher(ignore.ParseRules(".clineignore", "", []byte(".env\n")))})

	open := func(name string) *os.File {
		f, err := ws.Root.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	if err := call.CheckOpened(open("notes.txt"), "notes.txt", false); err != nil {
		t.Errorf("a file no rule covers: %v, want it allowed", err)
	}
	if err := call.CheckOpened(open(".env"), "notes.txt", false); !isIgnored(err) {
		t.Errorf(".env opened under another name: %v, want refused as ignored", err)
	}
	unreadable := open(".env")
	unreadable.Close()
	err = call.CheckOpened(unreadable, "notes.txt", false)
	if !isIgnored(err) || !strings.Contains(err.Error(), "real path cannot be read") {
		t.Errorf("a handle whose real path cannot be read: %v, want refused", err)
	}
}

func isIgnored(err error) bool {
	te, ok := err.(*ToolError)
	return ok && te.Code == api.ToolCodeIgnored
}
