package coordinator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/coordinator/tool"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/ignore"
)

// failingWatcher stands in for a way of watching the ignore files that
// cannot start (no inotify instances left, say).
func failingWatcher(*os.Root, ...string) (*ignore.Watcher, error) {
	return nil, errors.New("inotify: too many open instances")
}

// ignorePolicy is newTestPolicy with the ways of keeping the ignore files
// current replaced.
func ignorePolicy(t *testing.T, files map[string]string, watchers ...func(*os.Root, ...string) (*ignore.Watcher, error)) *testPolicy {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tool.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &ran{}
	c := New(Options{Config: Config{PolicyConfig: PolicyConfig{AllowAll: true}}, Workspace: ws, Tools: policyTools(r),
		MCP: policyHub(), ignoreWatchers: watchers})
	t.Cleanup(func() { c.Close(); ws.Close() })
	return &testPolicy{c: c, dir: ws.Dir, ran: r}
}

// TestIgnoreRulesHoldWhenWatchingFails: when the .clineignore watcher
// cannot start, calls once ran with no ignore rules at all. An attacker
// reading the ignored .env, by the file tool or a command, is refused
// and never sees the secret: the rules are polled instead, edits to them
// still count, and when nothing can load them every path is refused.
func TestIgnoreRulesHoldWhenWatchingFails(t *testing.T) {
	const secret = "API_KEY=sk-live-4f2a"
	files := map[string]string{".clineignore": ".env\n", ".env": secret, "a.txt": "a", "b.txt": "b"}
	refused := func(t *testing.T, p *testPolicy, s *Session, u api.ToolUse) {
		t.Helper()
		res, rec := p.c.Execute(t.Context(), s, "", u)
		if rec.Status != api.StatusDenied || rec.Error == nil || rec.Error.Code != api.ToolCodeIgnored {
			t.Errorf("%s: got %s %+v, want denied as ignored", u.ID, rec.Status, rec.Error)
		}
		if p.ran.has(u.ID) || strings.Contains(resultText(res), secret) {
			t.Errorf("%s: the handler ran or the secret reached the result", u.ID)
		}
	}
	t.Run("polled instead of watched", func(t *testing.T) {
		p := ignorePolicy(t, files, failingWatcher, ignore.NewPollingWatcher)
		s := p.session(t, api.Permissions{})
		refused(t, p, s, use("r1", "read_file", map[string]any{"path": ".env"}))
		refused(t, p, s, use("r2", "execute_command", cmd("cat .env")))
		if err := os.WriteFile(filepath.Join(p.dir, ".clineignore"), []byte(".env\nb.txt\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		refused(t, p, s, use("r3", "read_file", map[string]any{"path": "b.txt"}))
		if _, rec := p.c.Execute(t.Context(), s, "", use("r4", "read_file", map[string]any{"path": "a.txt"})); rec.Status != api.StatusSucceeded {
			t.Errorf("a file no rule covers: got %s %+v, want it read", rec.Status, rec.Error)
		}
	})
	t.Run("nothing can load them", func(t *testing.T) {
		p := ignorePolicy(t, files, failingWatcher, failingWatcher)
		s := p.session(t, api.Permissions{})
		refused(t, p, s, use("n1", "read_file", map[string]any{"path": ".env"}))
		refused(t, p, s, use("n2", "execute_command", cmd("cat .env")))
		refused(t, p, s, use("n3", "read_file", map[string]any{"path": "a.txt"}))
	})
}
