package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestCodexDialect posts the Codex CLI's calls as Responses items, as
// Codex sends them (exec_command as a function call, apply_patch as a
// custom tool call), to a codex session: they run, the files change as
// Codex changes them, and the outputs read as Codex's. The codex pool
// holds Codex's names and none of the registry's.
func TestCodexDialect(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "old\n", "n.txt": "alpha\n", "p.png": png})
	pool := toolNames(decodeBody[api.ToolsResponse](t, ts.do(t, http.MethodGet, "/v1/tools?dialect=codex", nil), http.StatusOK).Tools)
	for _, n := range []string{"exec_command", "write_stdin", "apply_patch", "view_image"} {
		if !slices.Contains(pool, n) {
			t.Errorf("codex pool %v lacks %s", pool, n)
		}
	}
	cline := toolNames(decodeBody[api.ToolsResponse](t, ts.do(t, http.MethodGet, "/v1/tools", nil), http.StatusOK).Tools)
	for _, n := range []string{"read_file", "execute_command", "patch_files"} {
		if slices.Contains(pool, n) {
			t.Errorf("codex pool holds %s", n)
		}
	}
	for _, n := range []string{"exec_command", "patch_files"} {
		if slices.Contains(cline, n) {
			t.Errorf("cline pool holds %s", n)
		}
	}

	s := newSessionOf(t, ts, map[string]any{"dialect": "codex", "permissions": map[string]any{"allow": []string{"execute_command", "patch_files"}}})
	items := []any{
		// First: a non-zero exit cancels none of the message's other
		// calls, as Codex runs them independently.
		map[string]any{"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "exec_command", "arguments": `{"cmd":"cat n.txt; exit 2"}`},
		map[string]any{"type": "custom_tool_call", "id": "ctc_2", "call_id": "c2", "name": "apply_patch", "input": "*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch"},
		map[string]any{"type": "custom_tool_call", "id": "ctc_3", "call_id": "c3", "name": "apply_patch", "input": "*** Begin Patch\n*** Update File: n.txt\n@@\n-beta\n+x\n*** End Patch"},
		map[string]any{"type": "function_call", "id": "fc_4", "call_id": "c4", "name": "write_stdin", "arguments": `{"session_id":1,"chars":"y"}`},
	}
	got := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", items), http.StatusOK)
	if len(got.Output) != 4 {
		t.Fatalf("output = %+v", got.Output)
	}
	want := []*regexp.Regexp{
		regexp.MustCompile(`^Chunk ID: [0-9a-f]{6}\nWall time: [0-9.]+ seconds\nProcess exited with code 2\nOriginal token count: 2\nOutput:\nalpha\n$`),
		regexp.MustCompile(`^Exit code: 0\nWall time: [0-9.]+ seconds\nOutput:\nSuccess. Updated the following files:\nA a.txt\n$`),
		regexp.MustCompile(`^apply_patch verification failed: Failed to find expected lines in ` + regexp.QuoteMeta(filepath.Join(dir, "n.txt")) + `:\nbeta$`),
		regexp.MustCompile(`^write_stdin failed: Unknown process id 1$`),
	}
	for i, re := range want {
		if text := outputText(got.Output[i]); !re.MatchString(text) {
			t.Errorf("output %d = %q, want %v", i, text, re)
		}
	}
	img := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", []any{
		map[string]any{"type": "function_call", "id": "fc_5", "call_id": "c5", "name": "view_image", "arguments": `{"path":"p.png"}`},
	}), http.StatusOK)
	if items, ok := img.Output[0].Output.([]any); !ok || !strings.Contains(fmt.Sprint(items), "input_image") {
		t.Errorf("view_image output = %+v, want an input_image item", img.Output[0].Output)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "new\n" {
		t.Errorf("a.txt = %q, %v: *** Add File: replaces a file in Codex", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "n.txt")); !strings.HasPrefix(string(b), "alpha") {
		t.Errorf("n.txt = %q after a failed patch", b)
	}
}

// outputText is a function or custom tool call output as text: the
// string, or its text items joined.
func outputText(o openAIFunctionOutput) string {
	if s, ok := o.Output.(string); ok {
		return s
	}
	var b strings.Builder
	items, _ := o.Output.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// TestCodexCommandEnv: a codex session's commands see the variables Codex
// sets for its own commands (no colours, no pager, a UTF-8 C locale,
// CODEX_CI), on pipes and under a terminal, over the server's
// environment; the configured env still wins, and another dialect's
// commands get the server's environment alone.
func TestCodexCommandEnv(t *testing.T) {
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}
	cfg.Commands.Environ = func() []string {
		return []string{"PATH=" + os.Getenv("PATH"), "LANG=en_US.UTF-8", "COLORTERM=truecolor", "TERM=xterm"}
	}
	cfg.Commands.Env = map[string]string{"LC_ALL": "POSIX"}
	ts, _ := newDialectServer(t, cfg, nil)
	const show = `echo "$TERM|$NO_COLOR|$PAGER|$GIT_PAGER|$GH_PAGER|$LANG|$LC_CTYPE|$LC_ALL|${COLORTERM-unset}|$CODEX_CI"`
	s := newSessionOf(t, ts, map[string]any{"dialect": "codex"})
	for i, tty := range []bool{false, true} {
		args, _ := json.Marshal(map[string]any{"cmd": show, "tty": tty})
		got := decodeBody[functionOutputs](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages", []any{
			map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_env%d", i), "call_id": fmt.Sprintf("env%d", i), "name": "exec_command", "arguments": string(args)},
		}), http.StatusOK)
		want := "xterm|1|cat|cat|cat|C.UTF-8|C.UTF-8|POSIX||1"
		if text := outputText(got.Output[0]); !strings.Contains(text, "Output:\n"+want) {
			t.Errorf("tty %v: output %q, want %q", tty, text, want)
		}
	}
	text, _ := callIn(t, ts, "default", "toolu_env_cline", "execute_command", map[string]any{"command": show, "requires_approval": false})
	if want := "xterm||cat|cat||en_US.UTF-8||POSIX|truecolor|"; !strings.Contains(text, want) {
		t.Errorf("cline session: output %q, want %q", text, want)
	}
}
