package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// The escape suite: each case runs as an approved command (allow_all)
// against a real server with the default sandbox, and what it tried is
// checked from outside. SECURITY.md "What a command can do once approved".

// sandboxServer is a server with the default tools whose workspace holds
// files, and whose $HOME is a directory on disk with credentials in it.
type sandboxServer struct {
	*flowServer
	coord *coordinator.Coordinator
	home  string
	port  int
}

func newSandboxServer(t *testing.T, files map[string]string, mutate func(*coordinator.Config)) *sandboxServer {
	t.Helper()
	home, err := os.MkdirTemp("/var/tmp", "toolgate-home-") // on disk: /tmp is private in the sandbox anyway
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	for name, body := range map[string]string{".ssh/id_ed25519": "SSH-PRIVATE-KEY", ".aws/credentials": "AWS-SECRET-KEY", ".netrc": "NETRC-PASSWORD"} {
		p := filepath.Join(home, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	cfg := coordinator.DefaultConfig()
	cfg.Commands.OutputDir = t.TempDir()
	cfg.AllowAll = true
	if mutate != nil {
		mutate(&cfg)
	}
	f := newFixture(t, fixtureOptions{config: cfg, files: files, server: Config{Token: flowToken}})
	if mode := f.coord.SandboxInfo().Mode; mode != "bwrap" && mode != "landlock" {
		t.Fatalf("sandbox mode %q: the escape suite needs a sandbox (%s)", mode, f.coord.SandboxInfo().Reason)
	}
	s := &sandboxServer{flowServer: &flowServer{url: f.url, dir: f.dir}, coord: f.coord, home: home, port: f.port}
	// toolgate hands every command but its first to a sandbox started
	// ahead of time (internal/sandbox/warm.go): the cases run as those do.
	if out, failed := s.run(t, "true"); failed {
		t.Fatalf("the first command failed:\n%s", out)
	}
	return s
}

// run runs one command in a new session, approving it when the policy
// asks (a command naming paths outside the workspace does, even under
// allow_all), and returns its result text and whether it failed.
func (s *sandboxServer) run(t *testing.T, command string) (string, bool) {
	t.Helper()
	sid := s.session(t, api.Permissions{})
	use := realCmdUse("c1", command)
	b, _ := json.Marshal(map[string]any{"role": "assistant", "content": []api.ToolUse{use}})
	// A minute and a half: a fork bomb on a loaded machine takes a while to
	// reach its limit.
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/v1/sessions/"+sid+"/messages", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+flowToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan api.Event, 64)
	go func() {
		defer close(events)
		defer resp.Body.Close()
		readSSE(resp.Body, events)
	}()
	for ev := range events {
		switch ev.Type {
		case api.EventToolAwaitingApproval:
			s.decide(t, sid, "c1", api.DecisionRequest{Decision: "approve"})
		case api.EventMessageFinished:
			res := ev.Response.Message.Content[0]
			return resultText(res), res.IsError
		}
	}
	t.Fatal("the message did not finish")
	return "", false
}

// get is an authorized GET; it returns the status.
func (s *sandboxServer) get(t *testing.T, path string) int {
	t.Helper()
	return s.call(t, http.MethodGet, path, nil, nil)
}

func TestEscapeTokenNotInProc(t *testing.T) {
	s := newSandboxServer(t, nil, nil)
	// A process outside holding the token in its environment and argv,
	// as a server started with TOOLGATE_TOKEN would without its re-exec.
	outside := exec.Command("sh", "-c", "sleep 60", flowToken) // the token is sh's $0
	outside.Env = append(os.Environ(), "TOOLGATE_TOKEN="+flowToken)
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = outside.Process.Kill(); _ = outside.Wait() }()
	// The token is searched for in two halves joined by the shell and
	// written to a pattern file, so that no command line inside holds it.
	half := len(flowToken) / 2
	out, _ := s.run(t, fmt.Sprintf(`t="%s""%s"; printf '%%s\n' "$t" > /tmp/pattern; `+
		`echo "hits=$(cat /proc/*/environ /proc/*/cmdline 2>/dev/null | tr '\0' '\n' | grep -c -F -f /tmp/pattern)"; `+
		`test -e /proc/%d && echo "outside visible"; echo ran`, flowToken[:half], flowToken[half:], outside.Process.Pid))
	if !strings.Contains(out, "ran") {
		t.Fatalf("the command did not run:\n%s", out)
	}
	if !strings.Contains(out, "hits=0") {
		t.Errorf("the token is readable in /proc from inside:\n%s", out)
	}
	if strings.Contains(out, "outside visible") {
		t.Errorf("processes outside the sandbox are visible:\n%s", out)
	}
}

func TestEscapeWritesOutside(t *testing.T) {
	s := newSandboxServer(t, nil, nil)
	outsideDir, err := os.MkdirTemp("/var/tmp", "toolgate-outside-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outsideDir)
	targets := []string{filepath.Join(filepath.Dir(s.dir), "x"), filepath.Join(s.home, "x"), filepath.Join(outsideDir, "x")}
	out, _ := s.run(t, fmt.Sprintf(`echo a > ../x; echo b > "$HOME/x"; echo c > %s/x; cd .. && touch x; echo ran`, outsideDir))
	if !strings.Contains(out, "ran") {
		t.Fatalf("the command did not run:\n%s", out)
	}
	for _, p := range targets {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written from inside the sandbox", p)
			_ = os.Remove(p)
		}
	}
	if !strings.Contains(out, "Read-only file system") || !strings.Contains(out, "sandbox.writable") {
		t.Errorf("no read-only hint in:\n%s", out)
	}
}

func TestEscapeCredentialsUnreadable(t *testing.T) {
	s := newSandboxServer(t, nil, nil)
	out, _ := s.run(t, `cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc; ls -a ~/.ssh; grep -r . ~ 2>/dev/null; echo ran`)
	if !strings.Contains(out, "ran") {
		t.Fatalf("the command did not run:\n%s", out)
	}
	for _, secret := range []string{"SSH-PRIVATE-KEY", "AWS-SECRET-KEY", "NETRC-PASSWORD"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s read from inside:\n%s", secret, out)
		}
	}
}

func TestEscapeIgnoredFilesUnreadable(t *testing.T) {
	s := newSandboxServer(t, map[string]string{
		".clineignore":    "*.env\nprivate/\n",
		"app/.env":        "DOTENV-SECRET",
		"private/key.txt": "PRIVATE-SECRET",
		"public.txt":      "PUBLIC-MARKER",
		"later/notes.md":  "LATER-SECRET",
	}, nil)
	commands := map[string]string{
		"grep -r":       `grep -r SECRET . ; grep -r MARKER .`,
		"rg":            `rg --no-ignore --hidden SECRET ; rg --no-ignore --hidden MARKER`,
		"cat via globs": `g='*'; cat $g $g/$g $g/.$g 2>/dev/null`, // a glob the policy cannot expand before it runs
		"find -exec":    `find . -type f -exec cat {} +`,
		"python": `python3 -c '
import glob, os
for f in glob.glob("**/*", recursive=True, include_hidden=True):
    if not os.path.isdir(f):
        try: print(open(f).read())
        except OSError as e: print(e)
'`,
	}
	for name, command := range commands {
		t.Run(name, func(t *testing.T) {
			out, _ := s.run(t, command)
			if !strings.Contains(out, "PUBLIC-MARKER") {
				t.Fatalf("the command did not read the workspace:\n%s", out)
			}
			for _, secret := range []string{"DOTENV-SECRET", "PRIVATE-SECRET"} {
				if strings.Contains(out, secret) {
					t.Errorf("%s leaked:\n%s", secret, out)
				}
			}
			if !strings.Contains(out, "LATER-SECRET") {
				t.Errorf("a file no rule excludes was hidden:\n%s", out)
			}
		})
	}
	t.Run("re-masked when the ignore file changes", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(s.dir, ".clineignore"), []byte("*.env\nprivate/\nlater/\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, _ := s.run(t, `grep -r SECRET . ; grep -r MARKER .`)
			if !strings.Contains(out, "PUBLIC-MARKER") {
				t.Fatalf("the command did not read the workspace:\n%s", out)
			}
			if !strings.Contains(out, "LATER-SECRET") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("later/ is still readable after .clineignore excluded it:\n%s", out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func TestEscapeNetwork(t *testing.T) {
	for _, network := range []string{"off", "on"} {
		t.Run(network, func(t *testing.T) {
			s := newSandboxServer(t, nil, func(c *coordinator.Config) { c.Sandbox.Network = network })
			out, failed := s.run(t, fmt.Sprintf("curl -sS --max-time 5 http://127.0.0.1:%d/healthz", s.port))
			reached := strings.Contains(out, `"status":"ok"`)
			if reached != (network == "on") {
				t.Fatalf("network %s: reached toolgate = %v (failed %v)\n%s", network, reached, failed, out)
			}
			if network == "off" && !strings.Contains(out, `"network": "on"`) {
				t.Errorf("no network hint in:\n%s", out)
			}
		})
	}
}

func TestEscapeLeftoversDie(t *testing.T) {
	s := newSandboxServer(t, nil, nil)
	base := 3000 + os.Getpid()%1000
	markers := []string{fmt.Sprintf("%d.1", base), fmt.Sprintf("%d.2", base), fmt.Sprintf("%d.3", base)}
	out, failed := s.run(t, fmt.Sprintf(`nohup sleep %s >/dev/null 2>&1 & setsid sleep %s >/dev/null 2>&1 & (sleep %s >/dev/null 2>&1 &) ; echo spawned`,
		markers[0], markers[1], markers[2]))
	if failed || !strings.Contains(out, "spawned") {
		t.Fatalf("the command failed:\n%s", out)
	}
	for _, m := range markers {
		waitGone(t, "sleep "+m, 2*time.Second)
	}
}

// TestEscapeLimits: a fork bomb and a memory hog each end as a failed call
// with the limit named, while toolgate keeps answering other calls.
func TestEscapeLimits(t *testing.T) {
	s := newSandboxServer(t, map[string]string{"a.txt": "alive"}, func(c *coordinator.Config) {
		c.Sandbox.MaxProcesses, c.Sandbox.MaxMemoryBytes = 200, 256<<20
	})
	if s.coord.SandboxInfo().Limits != "cgroup" {
		t.Skip("no limit cgroups here: root cannot be held by RLIMIT_NPROC")
	}
	cases := map[string]struct{ command, want string }{
		"fork bomb":  {`bomb() { bomb | bomb & wait; }; bomb 2>/dev/null; wait`, "process limit"}, // quiet: bash reports every refused fork
		"memory hog": {`tail /dev/zero`, "memory"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var wg sync.WaitGroup
			var out string
			var failed bool
			wg.Go(func() { out, failed = s.run(t, tc.command) })
			// Meanwhile toolgate answers: health and another session's read.
			for range 3 {
				if code := s.get(t, "/healthz"); code != http.StatusOK {
					t.Errorf("healthz: %d", code)
				}
				sid := s.session(t, api.Permissions{})
				ev := next(t, s.sseMessage(t, sid, readUse("r1", "a.txt")), api.EventMessageFinished)
				if r := ev.Response.Message.Content[0]; !strings.Contains(resultText(r), "alive") {
					t.Errorf("read_file during the %s: %+v", name, r)
				}
			}
			waitAll(t, &wg)
			if !failed || !strings.Contains(out, tc.want) {
				t.Errorf("%s: failed=%v, want a failure naming %q:\n%.2000s", name, failed, tc.want, out)
			}
		})
	}
}
