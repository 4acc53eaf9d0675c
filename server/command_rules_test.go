package server

import (
	"errors"
	"fmt"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// commandTools are the tools of every dialect that run a command line,
// each with the input that runs one.
var commandTools = []struct {
	dialect, tool string
	input         func(line string) map[string]any
}{
	{"cline", "execute_command", func(l string) map[string]any { return map[string]any{"command": l, "requires_approval": false} }},
	{"claude_code", "Bash", func(l string) map[string]any { return map[string]any{"command": l} }},
	{"anthropic", "bash", func(l string) map[string]any { return map[string]any{"command": l} }},
}

// TestCommandRulesReachEveryCommandTool is the attack of a command rule
// written for one dialect: a deny of execute_command(rm:*) or Bash(rm:*)
// left the anthropic dialect's bash waiting for approval, and an ask on
// execute_command did not cover it. Each rule, managed or the session's,
// holds for every tool that runs a command: the deny refuses at once, the
// ask waits (and, unanswered, ends denied), and the file is still there.
func TestCommandRulesReachEveryCommandTool(t *testing.T) {
	for _, rs := range []struct {
		name             string
		managed, session api.Permissions
		allowAll         bool
		wantCode         string
	}{
		{name: "managed deny execute_command(rm:*)", managed: api.Permissions{Deny: []string{"execute_command(rm:*)"}}, wantCode: api.ToolCodeDenied},
		{name: "managed deny Bash(rm:*)", managed: api.Permissions{Deny: []string{"Bash(rm:*)"}}, wantCode: api.ToolCodeDenied},
		{name: "managed deny bash(rm:*)", managed: api.Permissions{Deny: []string{"bash(rm:*)"}}, wantCode: api.ToolCodeDenied},
		{name: "session deny execute_command(rm:*)", session: api.Permissions{Deny: []string{"execute_command(rm:*)"}}, wantCode: api.ToolCodeDenied},
		{name: "session deny Bash(rm:*)", session: api.Permissions{Deny: []string{"Bash(rm:*)"}}, wantCode: api.ToolCodeDenied},
		{name: "managed ask execute_command", managed: api.Permissions{Ask: []string{"execute_command"}}, allowAll: true, wantCode: api.ToolCodeNoDecision},
		{name: "managed ask shell_session(rm:*)", managed: api.Permissions{Ask: []string{"shell_session(rm:*)"}}, allowAll: true, wantCode: api.ToolCodeNoDecision},
	} {
		t.Run(rs.name, func(t *testing.T) {
			cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: rs.allowAll,
				ApprovalTimeout: coordinator.Duration(300 * time.Millisecond)}}
			cfg.Permissions = rs.managed
			files := map[string]string{}
			for i := range commandTools {
				files[fmt.Sprintf("v%d", i)] = "keep\n"
			}
			ts, dir := newDialectServer(t, cfg, files)
			for i, ct := range commandTools {
				t.Run(ct.dialect+" "+ct.tool, func(t *testing.T) {
					s := newSessionOf(t, ts, map[string]any{"dialect": ct.dialect, "permissions": rs.session})
					victim := fmt.Sprintf("v%d", i)
					out, st, code := callInCode(t, ts, s.ID, "toolu_rm"+victim, ct.tool, ct.input("rm -f "+victim))
					if st != api.StatusDenied || code != rs.wantCode {
						t.Errorf("%s %q: got %s %s (%q), want denied with code %s", ct.tool, "rm -f "+victim, st, code, out, rs.wantCode)
					}
					if _, err := os.Stat(filepath.Join(dir, victim)); errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s removed %s", ct.tool, victim)
					}
				})
			}
		})
	}
}

// callInCode is callIn that also returns the call's error code.
func callInCode(t *testing.T, ts *testServer, sid, id, name string, input any) (string, api.CallStatus, string) {
	t.Helper()
	got := decodeBody[api.MessageResponse](t, ts.do(t, "POST", "/v1/sessions/"+sid+"/messages", assistant(toolUse(id, name, input))), 200)
	text := ""
	for _, c := range got.Message.Content[0].Content {
		text += c.Text
	}
	code := ""
	if e := got.Calls[0].Error; e != nil {
		code = e.Code
	}
	return text, got.Calls[0].Status, code
}

// TestCommandHooksReachEveryCommandTool: a PreToolUse hook that guards
// commands under one tool's name ("execute_command", Claude Code's
// "Bash") runs for every tool that runs a command, so its refusal holds
// for the anthropic dialect's bash too and the file stays.
func TestCommandHooksReachEveryCommandTool(t *testing.T) {
	for _, matcher := range []string{"execute_command", "Bash"} {
		t.Run(matcher, func(t *testing.T) {
			cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true}}
			cfg.Hooks = hooks.Config{PreToolUse: []hooks.Matcher{{Matcher: matcher,
				Hooks: []hooks.Spec{{Type: "command", Command: `cat >/dev/null; echo "guard: no commands today" >&2; exit 2`}}}}}
			files := map[string]string{}
			for i := range commandTools {
				files[fmt.Sprintf("v%d", i)] = "keep\n"
			}
			ts, dir := newDialectServer(t, cfg, files)
			for i, ct := range commandTools {
				t.Run(ct.dialect+" "+ct.tool, func(t *testing.T) {
					s := newSessionOf(t, ts, map[string]any{"dialect": ct.dialect})
					victim := fmt.Sprintf("v%d", i)
					out, st, _ := callInCode(t, ts, s.ID, "toolu_hook"+victim, ct.tool, ct.input("rm -f "+victim))
					if st == api.StatusSucceeded {
						t.Errorf("%s ran past the hook: %q", ct.tool, out)
					}
					if _, err := os.Stat(filepath.Join(dir, victim)); errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s removed %s", ct.tool, victim)
					}
				})
			}
		})
	}
}

// TestBareCommandDenyHidesEveryCommandTool: a bare deny of one command
// tool takes every dialect's command tool out of the pool the model sees.
func TestBareCommandDenyHidesEveryCommandTool(t *testing.T) {
	ts, _ := newDialectServer(t, coordinator.Config{}, nil)
	for _, ct := range commandTools {
		s := newSessionOf(t, ts, map[string]any{"dialect": ct.dialect, "permissions": map[string]any{"deny": []string{"execute_command"}}})
		pool := toolNames(decodeBody[api.ToolsResponse](t, ts.do(t, "GET", "/v1/tools?session="+s.ID, nil), 200).Tools)
		if slices.Contains(pool, ct.tool) {
			t.Errorf("%s pool %v still offers %s", ct.dialect, pool, ct.tool)
		}
	}
}
