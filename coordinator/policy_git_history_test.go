package coordinator

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// git runs real git in dir, failing the test on error.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	full := append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)
	c := exec.Command("git", full...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// approvalReason runs a call and returns the approval reason it waited
// with, "" when it did not ask (then it must have been allowed).
func approvalReason(t *testing.T, p *testPolicy, s *Session, u api.ToolUse) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	reason := make(chan string, 1)
	go func() {
		ev, err := s.Events.WaitFor(ctx, 0, func(ev api.Event) bool {
			return ev.ToolUseID == u.ID && ev.Approval != nil
		})
		if err == nil {
			reason <- ev.Approval.Reason
		}
	}()
	verdict, rec, text := p.decideOnly(t, s, u)
	switch verdict {
	case "ask":
		select {
		case r := <-reason:
			return r
		case <-ctx.Done():
			t.Fatalf("%s asked, but no approval event was seen", u.ID)
		}
	case "allow":
		return ""
	}
	t.Fatalf("%s: got %s (%+v) %q, want allow or ask", u.ID, verdict, rec.Error, text)
	return ""
}

// TestGitHistoryAsksWhenIgnoredFilesAreTracked checks that commands which
// can print stored versions of files ask for approval, even under
// allow_all, when .clineignore excludes a file the repository tracks or
// once held, and that other commands, and repositories without such a
// file, are left alone. Real git lists what the repository holds.
func TestGitHistoryAsksWhenIgnoredFilesAreTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	history := []string{
		"git log -p", "git show", "git diff HEAD~1", "git diff", "git cat-file -p HEAD", "git grep TOKEN HEAD",
		"git blame a.txt", "git --no-pager log --all -p", "git -C . log -p", "cd sub && git log -p",
		"bash -c 'git show HEAD'", "ls | xargs git show", "g=git; $g show", "git stash show -p",
		"git archive HEAD", "git status -v", "git commit -av -m x", "git lg", "tig",
	}
	plain := []string{"git status", "git ls-files", "git rev-parse HEAD", "git branch", "ls -la", "git commit -a -m x"}

	files := map[string]string{".clineignore": "secret.txt\n", "secret.txt": "TOKEN=1", "a.txt": "a", "sub/b.txt": "b"}
	t.Run("tracked", func(t *testing.T) {
		p := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowAll: true}}, files)
		git(t, p.dir, "init", "-q")
		git(t, p.dir, "add", "-A")
		git(t, p.dir, "commit", "-qm", "one")
		git(t, p.dir, "commit", "-q", "--allow-empty", "-m", "two")
		s := p.session(t, api.Permissions{})
		for i, line := range history {
			reason := approvalReason(t, p, s, use(idFor("h", i), "execute_command", cmd(line)))
			if !strings.Contains(reason, "the sandbox cannot hide") {
				t.Errorf("%q: reason %q, want the git-history ask", line, reason)
			}
			if line == "git log -p" && !strings.Contains(reason, "secret.txt") {
				t.Errorf("%q: reason %q does not name the ignored file", line, reason)
			}
		}
		for i, line := range plain {
			if reason := approvalReason(t, p, s, use(idFor("p", i), "execute_command", cmd(line))); reason != "" {
				t.Errorf("%q asked (%q), want it allowed", line, reason)
			}
		}
	})
	t.Run("deleted from the repository but in its history", func(t *testing.T) {
		p := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowAll: true}}, files)
		git(t, p.dir, "init", "-q")
		git(t, p.dir, "add", "-A")
		git(t, p.dir, "commit", "-qm", "one")
		git(t, p.dir, "rm", "-q", "--cached", "secret.txt")
		git(t, p.dir, "commit", "-qm", "forget the secret")
		s := p.session(t, api.Permissions{})
		reason := approvalReason(t, p, s, use("d1", "execute_command", cmd("git log -p")))
		if !strings.Contains(reason, "secret.txt") {
			t.Errorf("reason %q, want the git-history ask naming secret.txt", reason)
		}
	})
	t.Run("ask rule and history together", func(t *testing.T) {
		p := newTestPolicy(t, Config{}, files)
		git(t, p.dir, "init", "-q")
		git(t, p.dir, "add", "-A")
		git(t, p.dir, "commit", "-qm", "one")
		s := p.session(t, api.Permissions{})
		reason := approvalReason(t, p, s, use("r1", "execute_command", cmd("git cat-file -p HEAD")))
		if !strings.Contains(reason, "not on the read-only list") || !strings.Contains(reason, "the sandbox cannot hide") {
			t.Errorf("reason %q, want both the default and the git-history reason", reason)
		}
	})
	for _, tc := range []struct{ name, setup string }{
		{"ignored file never committed", "untracked"},
		{"no repository", "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowAll: true}}, files)
			if tc.setup == "untracked" {
				git(t, p.dir, "init", "-q")
				git(t, p.dir, "add", "a.txt", ".clineignore", "sub")
				git(t, p.dir, "commit", "-qm", "one")
			}
			s := p.session(t, api.Permissions{})
			for i, line := range []string{"git log -p", "git show", "git diff HEAD"} {
				if reason := approvalReason(t, p, s, use(idFor("n", i), "execute_command", cmd(line))); reason != "" {
					t.Errorf("%q asked (%q), want it allowed: no ignored file is stored", line, reason)
				}
			}
		})
	}
}

func idFor(prefix string, i int) string { return prefix + string(rune('a'+i)) }
