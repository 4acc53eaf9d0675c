package server

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/hooks"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestHookInputDecidesTheSandbox: a PreToolUse hook's updatedInput is the
// call, its dialect mapping included: a hook that takes
// dangerouslyDisableSandbox out of a Bash call keeps the command in the
// sandbox (no approval to leave it is asked; the command cannot write
// outside the workspace), and one that puts it in makes the call ask.
func TestHookInputDecidesTheSandbox(t *testing.T) {
	outside := t.TempDir()
	scripts := t.TempDir()
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{AllowAll: true, AllowUnsandboxedCommands: true}}
	cfg.Sandbox.Writable = []string{scripts} // the sandbox shows hooks their own directory
	confined := filepath.Join(outside, "confined")
	asked := filepath.Join(outside, "asked")
	cfg.Hooks.PreToolUse = []hooks.Matcher{{Matcher: "Bash", Hooks: []hooks.Spec{ccHook(t, scripts, "sandbox.sh",
		`if grep -q dangerouslyDisableSandbox; then
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"touch `+confined+`"}}}'
else
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"touch `+asked+`","dangerouslyDisableSandbox":true}}}'
fi`)}}}
	ts, _ := newDialectServer(t, cfg, nil)
	if m := ts.coord.SandboxInfo().Mode; m != sandbox.InForceBwrap && m != sandbox.InForceLandlock {
		t.Skipf("no sandbox confines commands here (%s)", m)
	}
	s := newSessionOf(t, ts, map[string]any{"dialect": "claude_code"})

	t.Run("taken out", func(t *testing.T) {
		_, st, reasons := runApproving(t, ts, s.ID, "toolu_hook_out", "Bash", map[string]any{"command": "true", "dangerouslyDisableSandbox": true})
		for _, r := range reasons {
			if strings.Contains(r, "outside the sandbox") {
				t.Errorf("asked %q for a command the hook keeps in the sandbox", r)
			}
		}
		if _, err := os.Stat(confined); err == nil {
			t.Errorf("the command wrote outside the workspace (%s): it left the sandbox", st)
		}
	})
	t.Run("put in", func(t *testing.T) {
		_, st, reasons := runApproving(t, ts, s.ID, "toolu_hook_in", "Bash", map[string]any{"command": "true"})
		if !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, "outside the sandbox") }) {
			t.Errorf("the hook's dangerouslyDisableSandbox did not ask to leave the sandbox: %q (%s)", reasons, st)
		}
		if _, err := os.Stat(asked); err != nil || st != api.StatusSucceeded {
			t.Errorf("approved, the unsandboxed command did not write outside the workspace: %s %v", st, err)
		}
	})
}
