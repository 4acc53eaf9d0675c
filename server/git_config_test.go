package server

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// gitIn runs git in dir for the test's set-up.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestReadOnlyGitRunsNoRepositoryProgram is the attack of a planted
// .git/config: "read-only" git commands ran without approval and started
// the programs the repository's configuration names (an fsmonitor hook on
// git status, diff.external on git diff, a textconv driver from an
// included file on git log -p, a clean filter on git diff), in act and in
// plan mode. Each now waits for approval (unanswered, it ends denied) and
// the program leaves no marker; the same command in a repository without
// such keys still runs at once.
func TestReadOnlyGitRunsNoRepositoryProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	const marker = "pwned"
	cases := []struct {
		name, command, mode string
		plant               func(t *testing.T, dir, program string)
	}{
		{"core.fsmonitor on git status", "git status", "act", func(t *testing.T, dir, program string) {
			gitIn(t, dir, "config", "core.fsmonitor", program)
		}},
		{"core.fsmonitor on git status in plan mode", "git status", "plan", func(t *testing.T, dir, program string) {
			gitIn(t, dir, "config", "core.fsmonitor", program)
		}},
		{"diff.external on git diff", "git diff", "act", func(t *testing.T, dir, program string) {
			gitIn(t, dir, "config", "diff.external", program)
		}},
		{"textconv from an included file on git log -p", "git log -p", "act", func(t *testing.T, dir, program string) {
			writeTestFile(t, filepath.Join(dir, "inc.cfg"), "[diff \"conv\"]\n\ttextconv = "+program+"\n")
			writeTestFile(t, filepath.Join(dir, ".gitattributes"), "*.txt diff=conv\n")
			gitIn(t, dir, "config", "include.path", "../inc.cfg")
		}},
		{"clean filter on git diff", "git diff", "act", func(t *testing.T, dir, program string) {
			writeTestFile(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=f\n")
			gitIn(t, dir, "config", "filter.f.clean", program)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := coordinator.Config{PolicyConfig: coordinator.PolicyConfig{ApprovalTimeout: coordinator.Duration(300 * time.Millisecond)}}
			ts, dir := newDialectServer(t, cfg, map[string]string{"a.txt": "one\n"})
			gitIn(t, dir, "init", "-q")
			gitIn(t, dir, "add", "a.txt")
			gitIn(t, dir, "commit", "-qm", "one")
			writeTestFile(t, filepath.Join(dir, "a.txt"), "two\n")
			program := filepath.Join(dir, "program.sh")
			writeTestFile(t, program, "#!/bin/sh\ntouch '"+filepath.Join(dir, marker)+"'\ncat\n")
			if err := os.Chmod(program, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, dir, program)
			s := newSessionOf(t, ts, map[string]any{"mode": tc.mode})
			out, st, code := callInCode(t, ts, s.ID, "toolu_git", "execute_command", map[string]any{"command": tc.command, "requires_approval": false})
			if st != api.StatusDenied || code != api.ToolCodeNoDecision || !strings.Contains(out, "configuration") {
				t.Errorf("%s: got %s %s (%q), want it to wait for approval", tc.command, st, code, out)
			}
			if _, err := os.Stat(filepath.Join(dir, marker)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s ran the repository's program without approval", tc.command)
			}
		})
	}
	t.Run("a repository without such keys", func(t *testing.T) {
		ts, dir := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "one\n"})
		gitIn(t, dir, "init", "-q")
		if out, st, _ := callInCode(t, ts, "default", "toolu_git", "execute_command", map[string]any{"command": "git status", "requires_approval": false}); st != api.StatusSucceeded {
			t.Errorf("git status: got %s (%q), want it run without approval", st, out)
		}
	})
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
