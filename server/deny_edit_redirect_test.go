package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestRedirectIntoEditDeniedPathRefused: a command whose output
// redirection writes a path an Edit deny rule covers is refused before
// it runs, as Claude Code 2.1 denies `echo hi > src/x.go` under
// Edit(src/**), in every mode and under allow_all, for a file or a
// directory rule, from the workspace root or after a cd; a redirect to
// a file no rule covers is not refused by it.
func TestRedirectIntoEditDeniedPathRefused(t *testing.T) {
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true, AllowBypassPermissions: true}}
	ts, dir := newDialectServer(t, cfg, map[string]string{"src/main.go": "package main\n", "locked/a.txt": "a\n", "open.txt": "open\n"})
	n := 0
	for _, mode := range []string{"default", "acceptEdits", "bypassPermissions"} {
		sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": mode,
			"permissions": map[string]any{"deny": []string{"Edit(src/**)", "Edit(locked)"}}}).ID
		for _, command := range []string{
			"echo hi > src/redirected.go",
			"echo hi >> src/main.go",
			"ls 2>&1 > locked/list.txt",
			"cd src && echo hi > x.go",
			"echo hi > " + filepath.Join(dir, "src", "abs.go"),
		} {
			n++
			out, st, code := callInCode(t, ts, sid, fmt.Sprintf("toolu_redir%d", n), "Bash", map[string]any{"command": command})
			if st != api.StatusDenied || code != api.ToolCodeDenied || !strings.Contains(out, "deny rule") {
				t.Errorf("%s: %q = %s %s %q, want denied by the Edit deny rule", mode, command, st, code, out)
			}
		}
		n++
		if out, st, _ := callInCode(t, ts, sid, fmt.Sprintf("toolu_redir%d", n), "Bash", map[string]any{"command": "echo changed > open.txt"}); st != api.StatusSucceeded {
			t.Errorf("%s: a redirect to a file no rule covers = %s %q", mode, st, out)
		}
	}
	for _, f := range []string{"src/redirected.go", "src/x.go", "src/abs.go", "locked/list.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "src", "main.go")); string(b) != "package main\n" {
		t.Errorf("src/main.go = %q", b)
	}
}

// TestRedirectsByMode: output redirections judged as Claude Code 2.1
// judges them (measured by internal/conformance/claudecode's probe):
// in the default mode a redirect into a workspace file asks, even when
// an allow rule covers the command; acceptEdits runs it, as it runs
// Edit, but still asks for a write outside the workspace, into a
// protected file, after a cd, or by a command that is not allowed on
// its own.
func TestRedirectsByMode(t *testing.T) {
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{ApprovalTimeout: coordinator.Duration(200 * time.Millisecond)}}
	ts, dir := newDialectServer(t, cfg, map[string]string{"notes/a.txt": "a\n", "README.md": "readme\n"})
	n := 0
	for _, tc := range []struct {
		mode, command string
		want          api.CallStatus
	}{
		{"default", "echo hi > out.txt", api.StatusDenied},
		{"default", "touch t.txt > out2.txt", api.StatusDenied},
		{"default", "ls", api.StatusSucceeded},
		{"acceptEdits", "echo hi > out.txt", api.StatusSucceeded},
		{"acceptEdits", "echo more >> notes/a.txt", api.StatusSucceeded},
		{"acceptEdits", "ls > listing.txt 2>&1", api.StatusSucceeded},
		{"acceptEdits", "cat README.md > copy.txt", api.StatusSucceeded},
		{"acceptEdits", "touch made.txt > out3.txt", api.StatusSucceeded},
		{"acceptEdits", "echo hi > ../outside.txt", api.StatusDenied},
		{"acceptEdits", "echo hi > .bashrc", api.StatusDenied},
		{"acceptEdits", "echo '[x]' >> .git/config", api.StatusDenied},
		{"acceptEdits", "echo hi > \"$HOME/x.txt\"", api.StatusDenied},
		{"acceptEdits", "cd notes && echo hi > b.txt", api.StatusDenied},
		{"acceptEdits", "curl -s http://127.0.0.1:9/ > page.html", api.StatusDenied},
		{"acceptEdits", "echo hi > out4.txt; rm -f README.md", api.StatusDenied},
	} {
		n++
		sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": tc.mode, "permissions": map[string]any{"allow": []string{"Bash(touch:*)"}}}).ID
		out, st, code := callInCode(t, ts, sid, fmt.Sprintf("toolu_mode%d", n), "Bash", map[string]any{"command": tc.command})
		if st != tc.want || (st == api.StatusDenied && code != api.ToolCodeNoDecision) {
			t.Errorf("%s: %q = %s %s %q, want %s", tc.mode, tc.command, st, code, out, map[bool]string{true: "asked", false: string(tc.want)}[tc.want == api.StatusDenied])
		}
	}
	// An Edit allow rule covering the target lets Claude Code write it by
	// redirection in the default mode; one that does not cover it, not.
	sid := newSessionOf(t, ts, map[string]any{"dialect": "claude_code", "mode": "default", "permissions": map[string]any{"allow": []string{"Edit(notes/**)"}}}).ID
	for i, tc := range []struct {
		command string
		want    api.CallStatus
	}{{"echo more >> notes/b.txt", api.StatusSucceeded}, {"echo hi > out5.txt", api.StatusDenied}, {"rm -f x > notes/c.txt", api.StatusDenied}} {
		if out, st, _ := callInCode(t, ts, sid, fmt.Sprintf("toolu_editallow%d", i), "Bash", map[string]any{"command": tc.command}); st != tc.want {
			t.Errorf("Edit(notes/**) allowed: %q = %s %q, want %s", tc.command, st, out, tc.want)
		}
	}
	for _, f := range []string{"out.txt", "listing.txt", "copy.txt", "notes/b.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("acceptEdits did not write %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Errorf("README.md removed: %v", err)
	}
}
