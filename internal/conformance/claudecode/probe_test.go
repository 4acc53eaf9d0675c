package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/conformance"
)

// probeRules are the permission rules both sides get: Claude Code from
// the workspace's .claude/settings.json, toolgate as the session's.
var probeRules = map[string][]string{
	"allow": {"Bash(git diff:*)", "Bash(touch:*)", "Bash(ls:*)", "Edit(docs/**)"},
	"ask":   {"Bash(git push:*)"},
	"deny":  {"Read(./secret/**)", "Edit(src/**)", "Bash(rm:*)"},
}

// probeFloor is the ratchet: outcomes the same as Claude Code 2.1.197's,
// as measured. The one left: a redirection into a directory a Read deny
// rule covers, which Claude Code asks about (its redirection check
// weighs Edit rules only) and toolgate refuses (a command naming a path
// denied to reading is refused).
const probeFloor = 27

// probeSecret is the content of the denied file; no result may hold it.
const probeSecret = "PROBE-SECRET-5150"

// probe is the permission probe's script: calls each rule (or the
// defaults) decides.
var probe = []call{
	{"Bash", obj{"command": "git diff --stat"}, "allowed prefix"},
	{"Bash", obj{"command": "touch made.txt && echo done"}, "allowed prefix, compound"},
	{"Bash", obj{"command": "rm -f README.md"}, "denied prefix"},
	{"Bash", obj{"command": "git push origin main"}, "ask rule"},
	{"Bash", obj{"command": "curl -s http://127.0.0.1:9/"}, "no rule, not read-only"},
	{"Bash", obj{"command": "echo hi > out.txt"}, "no rule, a redirect"},
	{"Bash", obj{"command": "echo more >> notes/out.txt"}, "append into a subdirectory"},
	{"Bash", obj{"command": "ls > listing.txt 2>&1"}, "ls, a redirect"},
	{"Bash", obj{"command": "echo hi > ../probe-outside.txt"}, "a redirect outside the workspace"},
	{"Bash", obj{"command": "echo hi > /tmp/probe-outside.txt"}, "a redirect to /tmp"},
	{"Bash", obj{"command": "echo hi > src/redirected.go"}, "a redirect into an Edit-denied path"},
	{"Bash", obj{"command": "echo hi > secret/out.txt"}, "a redirect into a Read-denied path"},
	{"Bash", obj{"command": "echo '[x]' >> .git/config"}, "a redirect into .git/config"},
	{"Bash", obj{"command": "echo hi > .bashrc"}, "a redirect into a shell start-up file"},
	{"Bash", obj{"command": "echo hi > \"$HOME/x.txt\""}, "a redirect to a variable's path"},
	{"Bash", obj{"command": "cat README.md > copy.txt"}, "cat, a redirect"},
	{"Bash", obj{"command": "touch t.txt > out2.txt"}, "allowed prefix, a redirect"},
	{"Bash", obj{"command": "curl -s http://127.0.0.1:9/ > page.html"}, "not read-only, a redirect"},
	{"Bash", obj{"command": "echo more >> docs/notes.txt"}, "a redirect an Edit allow rule covers"},
	{"Bash", obj{"command": "cat secret/key.txt"}, "a command reading a denied path"},
	{"Read", obj{"file_path": "{WS}/secret/key.txt"}, "Read of a denied path"},
	{"Read", obj{"file_path": "{WS}/README.md"}, "Read, no rule"},
	{"Grep", obj{"pattern": "PROBE-SECRET", "output_mode": "content"}, "Grep over the denied file"},
	{"Glob", obj{"pattern": "secret/*"}, "Glob of the denied directory"},
	{"Read", obj{"file_path": "{WS}/src/main.go"}, "read before the edit"},
	{"Edit", obj{"file_path": "{WS}/src/main.go", "old_string": "package main", "new_string": "package changed"}, "Edit under a denied path"},
	{"Write", obj{"file_path": "{WS}/src/new.go", "content": "package main\n"}, "Write under a denied path"},
	{"Write", obj{"file_path": "{WS}/notes/new.txt", "content": "x\n"}, "Write, no rule"},
}

// acceptEditsProbe are the redirections again, in Claude Code's
// acceptEdits mode, in which it lets a command write by redirection a
// file in its working directory that no rule or safety check holds.
var acceptEditsProbe = []call{
	{"Bash", obj{"command": "echo hi > out.txt"}, "a redirect"},
	{"Bash", obj{"command": "echo more >> notes/out.txt"}, "append into a subdirectory"},
	{"Bash", obj{"command": "ls > listing.txt 2>&1"}, "ls, a redirect"},
	{"Bash", obj{"command": "echo hi > ../probe-outside.txt"}, "a redirect outside the workspace"},
	{"Bash", obj{"command": "echo hi > src/redirected.go"}, "a redirect into an Edit-denied path"},
	{"Bash", obj{"command": "echo '[x]' >> .git/config"}, "a redirect into .git/config"},
	{"Bash", obj{"command": "echo hi > .bashrc"}, "a redirect into a shell start-up file"},
	{"Bash", obj{"command": "echo hi > \"$HOME/x.txt\""}, "a redirect to a variable's path"},
	{"Bash", obj{"command": "curl -s http://127.0.0.1:9/ > page.html"}, "not read-only, a redirect"},
	{"Bash", obj{"command": "touch made.txt"}, "a file command"},
}

// acceptEditsFloor is the ratchet of the acceptEdits pass, as measured:
// every outcome the same (toolgate's coordinator/policy/redirects.go).
const acceptEditsFloor = 10

// outcome classifies a result: allow (the tool ran), ask (Claude Code
// in print mode refuses what it would ask about; toolgate waits for an
// approval), deny.
type outcome string

// claudeOutcome reads Claude Code's refusal texts. Denials: a deny rule's
// "Permission to use X has been denied", an input check's "denied by your
// permission settings", a redirection "blocked by a deny rule". What it
// would ask about, refused in print mode: "requested permissions ...
// haven't granted it yet", "This command requires approval", a
// redirection that "was blocked. For security, Claude Code may only
// write to files in the allowed working directories" (its path check's
// ask, for any file written outside acceptEdits), an edit of a
// "sensitive file", and the checks that "require manual approval".
func claudeOutcome(text string) outcome {
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(text, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("has been denied", "denied by your permission settings", "blocked by a deny rule"):
		return "deny"
	case has("haven't granted it yet", "requested permissions", "requires approval", "require manual approval",
		"requires manual approval", "require explicit approval", "was blocked. For security"):
		return "ask"
	}
	return "allow"
}

// TestPermissionsMatchClaudeCode runs the probe through the real Claude
// Code (default permission mode, the rules in .claude/settings.json, the
// workspace trusted) and through a toolgate claude_code session with the
// same rules, and compares which calls each allows, asks about and
// denies. The table is logged; a call toolgate allows where Claude Code
// does not, any toolgate result holding the denied file's content, or
// fewer outcomes the same than the floor fails the test.
func TestPermissionsMatchClaudeCode(t *testing.T) {
	runProbe(t, "default", probe, probeFloor)
}

// TestRedirectsMatchClaudeCodeAcceptEdits is the probe's redirections in
// acceptEdits mode.
func TestRedirectsMatchClaudeCodeAcceptEdits(t *testing.T) {
	runProbe(t, "acceptEdits", acceptEditsProbe, acceptEditsFloor)
}

// runProbe runs calls through both sides in a permission mode and
// compares the outcomes (see TestPermissionsMatchClaudeCode).
func runProbe(t *testing.T, mode string, calls []call, floor int) {
	bin := claudeBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	wsClient, wsToolgate := probeWorkspace(t), probeWorkspace(t)

	tg := conformance.StartToolgate(t, wsToolgate, map[string]any{"policy": map[string]any{"approval_timeout": "1s"}})
	rules := map[string]any{}
	for k, v := range probeRules {
		rules[k] = v
	}
	sid, err := tg.NewSession(ctx, map[string]any{"dialect": "claude_code", "mode": mode, "permissions": rules})
	if err != nil {
		t.Fatal(err)
	}
	mock := newMockModel(promptMarker, func(i int) (string, map[string]any, bool) {
		if i >= len(calls) {
			return "", nil, false
		}
		return calls[i].name, fill(calls[i].input, strings.NewReplacer(wsPH, wsClient)).(map[string]any), true
	}, nil)
	defer mock.close()
	home := t.TempDir()
	if err := trustWorkspace(home, wsClient); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(home, "probe.jsonl")
	if err := runClaudeWith(ctx, bin, wsClient, home, mock.srv.URL, log, []string{"--permission-mode", mode, "--allowedTools", "Glob,Grep"}); err != nil {
		out, _ := os.ReadFile(log)
		t.Fatalf("%v\n%s", err, tail(out, 4000))
	}
	var table strings.Builder
	same := 0
	for i, c := range calls {
		r, ok := mock.result(toolUseID(i))
		if !ok {
			t.Fatalf("Claude Code sent no tool_result for probe call %d (%s)", i, c.note)
		}
		theirs := claudeOutcome(resultText(r))
		ours, text, err := toolgateOutcome(ctx, tg, sid, toolUseID(i), c.name, fill(c.input, strings.NewReplacer(wsPH, wsToolgate)).(map[string]any))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text, probeSecret) {
			t.Errorf("toolgate's result of %s (%s) holds the denied file's content", c.name, c.note)
		}
		mark := "same"
		if theirs == ours {
			same++
		} else {
			mark = "DIFFERENT"
			if ours == "allow" {
				t.Errorf("%s (%s): toolgate allows what Claude Code %ss", c.name, c.note, theirs)
			}
		}
		fmt.Fprintf(&table, "%-45s Claude Code %-5s toolgate %-5s %s\n", c.name+" "+c.note, theirs, ours, mark)
		if theirs != "allow" || theirs != ours {
			fmt.Fprintf(&table, "    Claude Code: %.200q\n", resultText(r))
		}
	}
	t.Logf("permission probe, Claude Code %s, %s mode: %d of %d outcomes the same\n%s", Version, mode, same, len(calls), table.String())
	if err := conformance.Announce("Claude Code %s permission probe (%s mode): %d of %d outcomes the same", Version, mode, same, len(calls)); err != nil {
		t.Log(err)
	}
	if same < floor {
		t.Errorf("%d of %d outcomes the same, below the floor %d", same, len(calls), floor)
	}
}

// probeWorkspace is the generated workspace with a secret to deny.
func probeWorkspace(t *testing.T) string {
	ws := workspace(t)
	if err := os.MkdirAll(filepath.Join(ws, "secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "secret", "key.txt"), []byte(probeSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"permissions": probeRules})
	if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// trustWorkspace marks the workspace trusted in Claude Code's HOME
// config: it applies a project's settings only then.
func trustWorkspace(home, ws string) error {
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true,
		"projects": map[string]any{ws: map[string]any{"hasTrustDialogAccepted": true}}})
	return os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o644)
}

// toolgateOutcome posts one call and reads its record: denied is deny, an
// approval that timed out (the session's approval_timeout) is ask, and
// anything else ran.
func toolgateOutcome(ctx context.Context, tg *conformance.Toolgate, sid, id, name string, input map[string]any) (outcome, string, error) {
	msg := map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}
	var out struct {
		Message struct {
			Content []conformance.Result `json:"content"`
		} `json:"message"`
		Calls []struct {
			Status string `json:"status"`
			Error  *struct {
				Code string `json:"code"`
			} `json:"error"`
		} `json:"calls"`
	}
	if err := tg.Do(ctx, http.MethodPost, "/v1/sessions/"+sid+"/messages", msg, &out, http.StatusOK); err != nil {
		return "", "", err
	}
	if len(out.Calls) != 1 || len(out.Message.Content) != 1 {
		return "", "", fmt.Errorf("toolgate answered %d calls, %d results", len(out.Calls), len(out.Message.Content))
	}
	text := resultText(out.Message.Content[0])
	switch c := out.Calls[0]; {
	case c.Error != nil && c.Error.Code == "approval_timeout":
		return "ask", text, nil
	case c.Status == "denied":
		return "deny", text, nil
	}
	return "allow", text, nil
}
