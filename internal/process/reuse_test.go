package process

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/sandbox"
)

// sessionRuns runs commands of one session in bwrap mode, as the command
// handler does (Confine.Session set), in a fresh workspace.
type sessionRuns struct {
	t  *testing.T
	sb *sandbox.Sandbox
	ws string
}

func newSessionRuns(t *testing.T, cfg sandbox.Config) *sessionRuns {
	t.Helper()
	cfg.Mode = sandbox.ModeBwrap
	sb := sandbox.New(cfg)
	if sb.Mode() != sandbox.InForceBwrap {
		t.Skipf("no bubblewrap here: %s", sb.Info().Reason)
	}
	t.Cleanup(sb.Close)
	if sb.Info().Limits != "cgroup" {
		t.Skip("no limit cgroups here: sandboxes are not kept for a session")
	}
	s := &sessionRuns{t: t, sb: sb, ws: t.TempDir()}
	// A configuration's first run has sandboxes started ahead for the
	// next ones; only those are kept for a session.
	s.run("", "true")
	return s
}

// run runs command in session, with r's masks, and returns its result and output.
func (s *sessionRuns) run(session, command string, hide ...string) (Result, string) {
	s.t.Helper()
	res, out := run(s.t, s.t.Context(), Options{Command: command, Dir: s.ws, Env: os.Environ(), Sandbox: s.sb,
		Confine: sandbox.Run{Workspace: s.ws, Session: session, Hide: hide}})
	return res, text(s.t, out)
}

// sandboxID is the command's PID namespace and cgroups, as seen inside:
// the same namespace means the same sandbox.
const sandboxID = `echo "ns=$(readlink /proc/self/ns/pid)"; grep -E ':(pids|memory):|^0::' /proc/self/cgroup | tr '\n' ' '; echo`

func field(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, name+"="); ok {
			return v
		}
	}
	return ""
}

// TestSessionKeepsItsSandbox: a session's second command runs in the
// sandbox its first ran in (the same PID namespace), in limit cgroups
// of its own, with /tmp emptied; another session's does not.
func TestSessionKeepsItsSandbox(t *testing.T) {
	s := newSessionRuns(t, sandbox.Config{})
	_, first := s.run("a", sandboxID+"; echo secret >/tmp/left; mkdir /tmp/d; touch /tmp/d/f; chmod 000 /tmp/d")
	_, second := s.run("a", sandboxID+"; ls -A /tmp")
	if field(first, "ns") == "" || field(first, "ns") != field(second, "ns") {
		t.Fatalf("the session's second command got another sandbox:\n%s\n%s", first, second)
	}
	cg := func(out string) string { return strings.SplitN(out, "\n", 3)[1] }
	if cg(first) == cg(second) || cg(second) == "" {
		t.Errorf("the second command ran in the first one's cgroups: %q, %q", cg(first), cg(second))
	}
	if strings.Contains(second, "left") || strings.Contains(second, "d\n") {
		t.Errorf("/tmp kept the first command's files:\n%s", second)
	}
	_, other := s.run("b", sandboxID)
	if field(other, "ns") == field(first, "ns") {
		t.Errorf("another session's command ran in session a's sandbox:\n%s", other)
	}
}

// TestKeptSandboxEnforcesTheNextCommandsLimit: a fork bomb as a session's
// second command ends at the process limit, in its own cgroup, and the
// session's next command gets a sandbox of its own.
func TestKeptSandboxEnforcesTheNextCommandsLimit(t *testing.T) {
	s := newSessionRuns(t, sandbox.Config{MaxProcesses: 64})
	_, first := s.run("a", sandboxID)
	res, second := s.run("a", sandboxID+`; bomb() { bomb | bomb & wait; }; bomb; wait; exit 3`)
	if field(second, "ns") != field(first, "ns") {
		t.Fatalf("the second command did not go to the session's sandbox:\n%s\n%s", first, second)
	}
	if !strings.Contains(res.Limit, "process limit") {
		t.Errorf("limit %q, want the process limit (exit %d)", res.Limit, res.ExitCode)
	}
	_, third := s.run("a", sandboxID)
	if field(third, "ns") == field(second, "ns") {
		t.Errorf("the sandbox of a command that reached its limit served the next")
	}
}

// TestCommandCannotTamperWithTheHelper: the helper (PID 2 in the
// sandbox) cannot be read through /proc by a command (its descriptors,
// environment and memory: the kernel's ptrace access check, the one
// PTRACE_ATTACH passes too, refuses them for a process that is not
// dumpable); a command
// that kills it, or changes what the next command would inherit from it
// (its nice value, an rlimit), leaves the session's next command a
// sandbox of its own.
func TestCommandCannotTamperWithTheHelper(t *testing.T) {
	s := newSessionRuns(t, sandbox.Config{})
	_, out := s.run("a", sandboxID+`; readlink /proc/2/fd/0 >/dev/null 2>&1 && echo fd-readable; cat /proc/2/environ >/dev/null 2>&1 && echo environ-readable; head -c1 /proc/2/mem >/dev/null 2>&1 && echo mem-readable; echo checked`)
	if strings.Contains(out, "readable") || !strings.Contains(out, "checked") {
		t.Errorf("the helper's /proc entries were open to the command, or it could be traced:\n%s", out)
	}
	for _, tamper := range []string{"kill -9 2", "renice -n 7 -p 2 >/dev/null", "prlimit --pid 2 --fsize=4096"} {
		t.Run(tamper, func(t *testing.T) {
			_, before := s.run("a", sandboxID)
			s.run("a", tamper)
			res, after := s.run("a", sandboxID+"; echo nice=$(nice); echo fsize=$(ulimit -f)")
			if res.ExitCode != 0 || field(after, "ns") == field(before, "ns") || field(after, "nice") != "0" || field(after, "fsize") != "unlimited" {
				t.Errorf("after %q, the next command ran in the same sandbox or with the change (exit %d):\n%s\n%s", tamper, res.ExitCode, before, after)
			}
		})
	}
}

// TestMaskChangeTakesANewSandbox: when a file is masked since the
// session's last command, its next command gets another sandbox, in which
// the file is masked.
func TestMaskChangeTakesANewSandbox(t *testing.T) {
	s := newSessionRuns(t, sandbox.Config{})
	secret := filepath.Join(s.ws, "b.env")
	if err := os.WriteFile(secret, []byte("B-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, first := s.run("a", sandboxID+"; cat b.env")
	if !strings.Contains(first, "B-SECRET") {
		t.Fatalf("b.env, not yet masked, could not be read:\n%s", first)
	}
	_, second := s.run("a", sandboxID+"; cat b.env", secret)
	if field(second, "ns") == field(first, "ns") || strings.Contains(second, "B-SECRET") {
		t.Errorf("the masked file was read, or the sandbox made without its mask served:\n%s", second)
	}
}
