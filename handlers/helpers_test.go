package handlers

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// fixture is a workspace with the default tools, and a directory beside it
// that holds what must never be read or written.
type fixture struct {
	dir     string // the workspace
	outside string // a sibling directory outside it
	coord   *coordinator.Coordinator
	sess    *coordinator.Session
	n       int
}

func newFixture(t *testing.T) *fixture { t.Helper(); return newFixtureWith(t, nil) }

// newFixtureWith calls seed on the workspace directory before the
// coordinator opens it, so files such as .clineignore are in force from the
// first call rather than whenever the watcher notices them.
func newFixtureWith(t *testing.T, seed func(dir string)) *fixture {
	t.Helper()
	return newFixtureConfig(t, seed, nil)
}

// newFixtureConfig is newFixtureWith whose config conf may change first.
func newFixtureConfig(t *testing.T, seed func(dir string), conf func(*coordinator.Config)) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{dir: filepath.Join(base, "ws"), outside: filepath.Join(base, "ws_evil")}
	for _, d := range []string{f.dir, f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.outside, "secret.txt"), []byte("TOP SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if seed != nil {
		seed(f.dir)
	}
	ws, err := tool.OpenWorkspace(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	// allow_all: these tests are about what the tools do, not about asking
	// the user first.
	cfg := coordinator.DefaultConfig()
	cfg.AllowAll = true
	if conf != nil {
		conf(&cfg)
	}
	f.coord = coordinator.New(coordinator.Options{Config: cfg, Workspace: ws, Tools: Default(), Dialects: []tool.Dialect{cline.Dialect()}})
	t.Cleanup(f.coord.Close)
	f.sess, err = f.coord.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// write puts a file into the workspace.
func (f *fixture) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call runs one tool call through the real pipeline.
func (f *fixture) call(t *testing.T, name string, input any) (api.ToolResult, api.CallRecord) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	f.n++
	use := api.ToolUse{Type: api.TypeToolUse, ID: "toolu_" + name + "_" + string(rune('a'+f.n%26)) + itoa(f.n), Name: name, Input: raw}
	return f.coord.Execute(context.Background(), f.sess, "", use)
}

// newSession makes later calls run in a new session of the same
// workspace, which has read nothing yet.
func (f *fixture) newSession(t *testing.T) {
	t.Helper()
	s, err := f.coord.Sessions().Create(api.ModeAct, api.Permissions{})
	if err != nil {
		t.Fatal(err)
	}
	f.sess = s
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func text(r api.ToolResult) string {
	s := ""
	for _, c := range r.Content {
		s += c.Text
	}
	return s
}
