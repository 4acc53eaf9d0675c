package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// TestCommandsJudgePathsWhereTheyResolve is the attack of an in-workspace
// symlink leading outside: `cat link_outside/secret` looked like a read
// inside the workspace and ran without approval, printing the outside
// file. A command word is judged where it resolves, as the file tools
// judge it: each such read waits for approval (unanswered, it ends
// denied) and the secret is in no output, while a link that stays
// inside still reads at once.
func TestCommandsJudgePathsWhereTheyResolve(t *testing.T) {
	const secret = "outside-secret-91c3"
	// Outside the workspace and outside /tmp, which the sandbox replaces
	// with a private one: a place an approved-looking command can read.
	outside, err := os.MkdirTemp("/var/tmp", "toolgate-outside-")
	if err != nil {
		t.Skipf("no /var/tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{ApprovalTimeout: coordinator.Duration(300 * time.Millisecond)}}
	ts, dir := newDialectServer(t, cfg, map[string]string{"inside/a.txt": "inside text\n"})
	for name, target := range map[string]string{"link_outside": outside, "procroot": "/", "link_inside": "inside", "secret_link": filepath.Join(outside, "secret")} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for i, line := range []string{
		"cat link_outside/secret",
		"cat secret_link",
		"cat procroot" + outside + "/secret",
		"cd link_outside && cat secret",
		"cat link_out*/secret",
		"grep -r outside link_outside",
	} {
		t.Run(line, func(t *testing.T) {
			out, st, code := callInCode(t, ts, "default", "toolu_link"+strconv.Itoa(i), "execute_command", map[string]any{"command": line, "requires_approval": false})
			if st != api.StatusDenied || code != api.ToolCodeNoDecision {
				t.Errorf("got %s %s (%q), want it to wait for approval", st, code, out)
			}
			if strings.Contains(out, secret) {
				t.Errorf("the outside file reached the result: %q", out)
			}
		})
	}
	t.Run("a link that stays inside", func(t *testing.T) {
		if out, st, _ := callInCode(t, ts, "default", "toolu_in", "execute_command", map[string]any{"command": "cat link_inside/a.txt", "requires_approval": false}); st != api.StatusSucceeded || !strings.Contains(out, "inside text") {
			t.Errorf("got %s (%q), want it read at once", st, out)
		}
	})
}
