package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the dialect transcripts' golden files in testdata/")

// transcriptStep is one assistant turn of a recorded transcript: its
// tool_use blocks, posted as one message.
type transcriptStep []map[string]any

func use(id, name string, input map[string]any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

// replay posts each step as an assistant message to a session of the
// dialect and renders every tool_result, in order, with the workspace
// path replaced by $WS so that the golden file is stable.
func replay(t *testing.T, inst *instance, dialect string, steps []transcriptStep) (string, string) {
	t.Helper()
	resp := inst.post(t, "/v1/sessions", map[string]any{"dialect": dialect})
	var sess api.Session
	decodeJSON(t, resp, http.StatusCreated, &sess)
	var b strings.Builder
	for _, step := range steps {
		blocks := make([]any, len(step))
		for i, s := range step {
			blocks[i] = s
		}
		resp := inst.post(t, "/v1/sessions/"+sess.ID+"/messages", map[string]any{"role": "assistant", "content": blocks})
		var out api.MessageResponse
		decodeJSON(t, resp, http.StatusOK, &out)
		for i, r := range out.Message.Content {
			fmt.Fprintf(&b, "=== %s %s is_error=%v status=%s\n", r.ToolUseID, step[i]["name"], r.IsError, out.Calls[i].Status)
			for _, c := range r.Content {
				if c.Type == api.TypeText {
					b.WriteString(strings.ReplaceAll(c.Text, inst.dir, "$WS") + "\n")
				} else {
					fmt.Fprintf(&b, "[%s %s]\n", c.Type, c.Source.MediaType)
				}
			}
		}
	}
	return b.String(), sess.ID
}

func decodeJSON(t *testing.T, resp *http.Response, want int, v any) {
	t.Helper()
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("status = %d, want %d: %s", resp.StatusCode, want, data)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// golden compares got with testdata/<name>, or rewrites it with
// -update-golden.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-golden to create it)", err)
	}
	if got != string(want) {
		t.Errorf("transcript differs from %s (run with -update-golden after checking the change)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// allowAllConfig writes a config that approves every call: the
// transcripts test the dialects, not approvals.
func allowAllConfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(`{"policy": {"allow_all": true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClaudeCodeTranscript replays a Claude Code session (the tool names,
// parameters and result texts of Claude Code's tools as its tool docs
// describe them: docs.anthropic.com/en/docs/claude-code/settings, "Tools
// available to Claude") against the real server: Read, a refused and a
// good Edit, MultiEdit, Write, Bash, Grep in its three modes, Glob, LS and
// TodoWrite, and checks every result against a golden file.
func TestClaudeCodeTranscript(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"bye\")\n}\n",
		"util/util.go": "package util\n\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n",
		"notes.md":     "# Notes\nTODO: write more\n",
	})
	// The files start an hour old, so that newest-first orders are fixed
	// whatever the file system's timestamp granularity.
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{"main.go", "util/util.go", "notes.md"} {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	inst := start(t, dir, "--config", allowAllConfig(t))
	main := filepath.Join(inst.dir, "main.go")
	got, sid := replay(t, inst, "claude_code", []transcriptStep{
		{use("toolu_01", "Edit", map[string]any{"file_path": main, "old_string": "hello", "new_string": "hi"})},
		{use("toolu_02", "Read", map[string]any{"file_path": main})},
		{use("toolu_03", "Read", map[string]any{"file_path": "main.go"})},
		{use("toolu_04", "Edit", map[string]any{"file_path": main, "old_string": "fmt.Println", "new_string": "println"})},
		{use("toolu_05", "Edit", map[string]any{"file_path": main, "old_string": "\"hello\"", "new_string": "\"hello, world\""})},
		{use("toolu_06", "MultiEdit", map[string]any{"file_path": main, "edits": []any{
			map[string]any{"old_string": "fmt.Println", "new_string": "fmt.Print", "replace_all": true},
			map[string]any{"old_string": "\"bye\"", "new_string": "\"bye\\n\""},
		}})},
		{use("toolu_07", "Write", map[string]any{"file_path": filepath.Join(inst.dir, "util", "util_test.go"), "content": "package util\n"})},
		{use("toolu_08", "Bash", map[string]any{"command": "grep -c Print main.go", "description": "Count prints"})},
		{use("toolu_08b", "Bash", map[string]any{"command": "echo out; exit 3"})},
		{use("toolu_08c", "Grep", map[string]any{"pattern": "^package util"})},
		{use("toolu_09", "Grep", map[string]any{"pattern": "print", "-i": true, "output_mode": "content", "-C": 1, "glob": "*.go"})},
		{use("toolu_10", "Grep", map[string]any{"pattern": "TODO|Double", "output_mode": "count"})},
		{use("toolu_11", "Glob", map[string]any{"pattern": "util/*.go"})},
		{use("toolu_12", "LS", map[string]any{"path": inst.dir, "ignore": []any{"*.md"}})},
		{use("toolu_13", "TodoWrite", map[string]any{"todos": []any{
			map[string]any{"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
			map[string]any{"content": "Fix the build", "status": "pending", "activeForm": "Fixing the build"},
		}})},
		{use("toolu_14", "read_file", map[string]any{"path": "main.go"})},
	})
	// Glob and Grep list newest first: util_test.go (written), util.go.
	golden(t, "claude_code_transcript.golden", got)

	resp, err := testHTTP.Do(authed(t, inst, "GET", "/v1/sessions/"+sid))
	if err != nil {
		t.Fatal(err)
	}
	var view api.Session
	decodeJSON(t, resp, http.StatusOK, &view)
	if len(view.Todos) != 2 || view.Todos[0].Status != "in_progress" || view.Dialect != api.DialectClaudeCode {
		t.Errorf("session after TodoWrite = %+v", view)
	}
	data, _ := os.ReadFile(main)
	if want := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Print(\"hello, world\")\n\tfmt.Print(\"bye\\n\")\n}\n"; string(data) != want {
		t.Errorf("main.go = %q, want %q", data, want)
	}
}

func authed(t *testing.T, inst *instance, method, path string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, inst.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+inst.token)
	return req
}

// TestAnthropicTranscript replays a Messages API conversation that
// declares Anthropic's two client tools (the text editor,
// text_editor_20250728, and bash, bash_20250124, as
// docs.anthropic.com/en/docs/agents-and-tools/tool-use/text-editor-tool
// and bash-tool define them) against the real server, and checks the
// tools entries a client sends to the API.
func TestAnthropicTranscript(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"app.py": "def f():\n    return 1\n\nprint(f())\n", "lib/util.py": "X = 1\nX = 1\n"})
	inst := start(t, dir, "--config", allowAllConfig(t))

	resp, err := http.DefaultClient.Do(authed(t, inst, "GET", "/v1/tools?dialect=anthropic&format=anthropic"))
	if err != nil {
		t.Fatal(err)
	}
	var tools struct{ Tools []map[string]any }
	decodeJSON(t, resp, http.StatusOK, &tools)
	want := []map[string]any{{"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}, {"type": "bash_20250124", "name": "bash"}}
	if got, _ := json.Marshal(tools.Tools); string(got) != mustJSON(t, want) {
		t.Errorf("tools = %s, want %s", got, mustJSON(t, want))
	}

	ed := func(id string, in map[string]any) map[string]any { return use(id, "str_replace_based_edit_tool", in) }
	got, _ := replay(t, inst, "anthropic", []transcriptStep{
		{ed("toolu_01", map[string]any{"command": "view", "path": "."})},
		{ed("toolu_02", map[string]any{"command": "view", "path": "app.py", "view_range": []int{2, -1}})},
		{ed("toolu_03", map[string]any{"command": "str_replace", "path": "app.py", "old_str": "return 1", "new_str": "return 2"})},
		{ed("toolu_04", map[string]any{"command": "str_replace", "path": "lib/util.py", "old_str": "X = 1", "new_str": "X = 2"})},
		{ed("toolu_05", map[string]any{"command": "str_replace", "path": "app.py", "old_str": "nothing", "new_str": "x"})},
		{ed("toolu_06", map[string]any{"command": "insert", "path": "app.py", "insert_line": 0, "insert_text": "import os"})},
		{ed("toolu_07", map[string]any{"command": "create", "path": "new.txt", "file_text": "hello\n"})},
		{use("toolu_08", "bash", map[string]any{"command": "cd lib && export GREETING=hi"})},
		{use("toolu_09", "bash", map[string]any{"command": "pwd | sed 's#.*/##'; echo $GREETING; python3 -c 'print(1)' >/dev/null 2>&1; false"})},
		{use("toolu_10", "bash", map[string]any{"restart": true})},
		{use("toolu_11", "bash", map[string]any{"command": "echo \"[$GREETING]\"; ls new.txt"})},
		{use("toolu_12", "Read", map[string]any{"file_path": filepath.Join(inst.dir, "app.py")})},
	})
	golden(t, "anthropic_transcript.golden", got)
	if data, _ := os.ReadFile(filepath.Join(dir, "app.py")); string(data) != "import os\ndef f():\n    return 2\n\nprint(f())\n" {
		t.Errorf("app.py = %q", data)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
