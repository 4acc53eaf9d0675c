package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/randid"
	"github.com/toolgate/toolgate/internal/testwait"
)

// TestPersistentShellTakesNewIgnoreRules: the Messages API's bash keeps
// one shell, sandboxed when it started. A rule added to .clineignore
// afterwards must reach the next command in it: a search that names no
// path (so no rule on paths stops it) must not print the newly ignored
// file, where the old shell's sandbox, made before the rule, would show
// it.
func TestPersistentShellTakesNewIgnoreRules(t *testing.T) {
	secret := "SHELL-SECRET-" + randid.Hex(8)
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{
		"a.txt":      "workspace file\n",
		"secret.txt": secret + "\n",
	})
	s := newSessionOf(t, ts, map[string]any{"dialect": "anthropic"}).ID
	bash := func(id, command string) string {
		resp := decodeBody[api.MessageResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s+"/messages",
			assistant(toolUse(id, "bash", map[string]any{"command": command}))), http.StatusOK)
		out := ""
		for _, c := range resp.Message.Content[0].Content {
			out += c.Text
		}
		return out
	}
	if out := bash("toolu_start", "cat a.txt"); !strings.Contains(out, "workspace file") {
		t.Fatalf("the shell did not start: %q", out)
	}
	if err := os.WriteFile(filepath.Join(dir, ".clineignore"), []byte("secret.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The rule is in force once read_file refuses the file.
	probe := newSessionOf(t, ts, map[string]any{"mode": "act"}).ID
	i := 0
	testwait.Until(t, 10*time.Second, "the new .clineignore rule to take effect", func() bool {
		i++
		_, st := callIn(t, ts, probe, "toolu_probe"+string(rune('a'+i%26))+randid.Hex(4), "read_file", map[string]any{"path": "secret.txt"})
		return st == api.StatusDenied
	})
	out := bash("toolu_search", "grep -r SHELL-SECRET . ; echo searched")
	if strings.Contains(out, secret) {
		t.Fatalf("the shell started before the rule printed the newly ignored file: %q", out)
	}
	if !strings.Contains(out, "searched") || !strings.Contains(out, "restarted") {
		t.Errorf("out = %q, want the search run in a restarted shell, and said so", out)
	}
}
