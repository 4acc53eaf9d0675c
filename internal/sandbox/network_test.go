package sandbox_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
	"github.com/toolgate/toolgate/internal/testwait"
)

// newNetworkSandbox is a bubblewrap sandbox that gives sessions networks;
// it skips where this machine cannot.
func newNetworkSandbox(t *testing.T, cfg sandbox.Config) *sandbox.Sandbox {
	t.Helper()
	cfg.Mode = sandbox.ModeBwrap
	s := sandbox.New(cfg)
	t.Cleanup(s.Close)
	if s.Mode() != sandbox.InForceBwrap {
		t.Skipf("no bubblewrap: %s", s.Info().Reason)
	}
	return s
}

// newNetwork makes a session network, closed at the test's end.
func newNetwork(t *testing.T, s *sandbox.Sandbox, o sandbox.NetworkOptions) *sandbox.Network {
	t.Helper()
	n, err := s.NewNetwork(o)
	if err != nil {
		t.Skipf("no session network here: %v", err)
	}
	t.Cleanup(n.Close)
	return n
}

// runNet runs a command as toolgate's runner does, in the network n, and
// returns its output and exit code.
func runNet(t *testing.T, ctx context.Context, s *sandbox.Sandbox, n *sandbox.Network, ws, command string) (string, int) {
	t.Helper()
	out := process.NewOutput(process.OutputLimits{})
	defer out.Remove()
	res, err := process.Run(ctx, process.Options{Sandbox: s, Confine: sandbox.Run{Workspace: ws, Net: n},
		Command: command, Env: os.Environ(), Output: out, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("run %q: %v", command, err)
	}
	_ = out.Close()
	return out.Summary(process.SummaryLimits{}), res.ExitCode
}

// startServer starts python's http.server on port as a background run in
// n (as a job would be) and waits until it listens.
func startServer(t *testing.T, s *sandbox.Sandbox, n *sandbox.Network, ws string, port int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		out := process.NewOutput(process.OutputLimits{})
		defer out.Remove()
		_, _ = process.Run(ctx, process.Options{Sandbox: s, Confine: sandbox.Run{Workspace: ws, Net: n},
			Command: "exec python3 -m http.server " + strconv.Itoa(port) + " --bind 127.0.0.1", Env: os.Environ(), Output: out})
	}()
	t.Cleanup(func() { cancel(); <-done })
	waitPort(t, n, port, true)
}

// waitPort waits up to 30 s for port to be listening (or not) in n.
func waitPort(t *testing.T, n *sandbox.Network, port int, listening bool) {
	t.Helper()
	testwait.Until(t, 30*time.Second, fmt.Sprintf("port %d listening=%v", port, listening), func() bool {
		ports, err := n.Ports()
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(ports, func(p sandbox.Port) bool { return p.Port == port }) == listening
	})
}

// TestSessionNetworkIsShared: a server a background run starts in one
// session's network answers a later command of the same session; a
// command of another session finds nothing on that port; toolgate reaches
// it from outside through Dial; and both networks are listed apart.
func TestSessionNetworkIsShared(t *testing.T) {
	s := newNetworkSandbox(t, sandbox.Config{})
	a, b := newNetwork(t, s, sandbox.NetworkOptions{}), newNetwork(t, s, sandbox.NetworkOptions{})
	if a.ID() == b.ID() {
		t.Fatalf("two sessions share the network %s", a.ID())
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "index.html"), []byte("hello from the dev server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	startServer(t, s, a, ws, 8123)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// Twice: the second may go to a sandbox started ahead of time, which
	// must have been started in the same network.
	for i := range 2 {
		out, code := runNet(t, ctx, s, a, ws, "curl -sS --max-time 10 http://localhost:8123/index.html")
		if code != 0 || !strings.Contains(out, "hello from the dev server") {
			t.Fatalf("run %d: curl in the same session: exit %d\n%s", i, code, out)
		}
	}
	for i := range 2 {
		out, code := runNet(t, ctx, s, b, ws, "curl -sS --max-time 10 http://localhost:8123/index.html")
		if code == 0 || strings.Contains(out, "hello from the dev server") {
			t.Fatalf("run %d: curl from another session reached the server: exit %d\n%s", i, code, out)
		}
	}
	if ports, _ := b.Ports(); len(ports) != 0 {
		t.Errorf("the other session lists ports %v, want none", ports)
	}
	conn, err := a.Dial(ctx, 8123)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /index.html HTTP/1.0\r\nHost: localhost\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("through Dial: %v %v", resp, err)
	}
	if _, err := b.Dial(ctx, 8123); err == nil {
		t.Error("Dial into the other session's network reached the port")
	}
}

// TestSessionNetworkEnds: once its runs have ended and it is closed, a
// network's holder is gone and no process is left in its namespace.
func TestSessionNetworkEnds(t *testing.T) {
	s := newNetworkSandbox(t, sandbox.Config{})
	n, err := s.NewNetwork(sandbox.NetworkOptions{})
	if err != nil {
		t.Skipf("no session network here: %v", err)
	}
	ws := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if out, code := runNet(t, ctx, s, n, ws, "true"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	id, holder := n.ID(), n.HolderPID()
	if in := inNamespace(id); len(in) == 0 {
		t.Fatalf("no process in %s while the network is open", id)
	}
	n.Close()
	testwait.Until(t, 30*time.Second, "the namespace to be empty", func() bool { return len(inNamespace(id)) == 0 })
	if err := syscall.Kill(holder, 0); err == nil {
		t.Errorf("the holder %d still runs", holder)
	}
}

// inNamespace lists the processes whose network namespace is id.
func inNamespace(id string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/net"); err == nil && l == id {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestSessionNetworkUnprivileged runs TestSessionNetworkIsShared,
// TestSessionNetworkEnds and TestPortsNetlink again as the user nobody,
// where toolgate may not enter a network namespace itself: the holder gets
// a user namespace of its own, commands join through nsenter, and the
// ports are listed through the holder's netlink socket all the same. It needs root to switch
// users (setpriv), and skips elsewhere.
func TestSessionNetworkUnprivileged(t *testing.T) {
	if os.Getuid() != 0 || os.Getenv("TOOLGATE_TEST_UNPRIVILEGED") != "" {
		t.Skip("needs root to run the tests as nobody")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv is not installed")
	}
	if _, err := exec.LookPath("nsenter"); err != nil {
		t.Skip("nsenter is not installed")
	}
	// A copy nobody may run, in a directory nobody may enter.
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		bin, "-test.run", "^(TestSessionNetwork(IsShared|Ends)|TestPortsNetlink)$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "TMPDIR=/tmp", "TOOLGATE_TEST_UNPRIVILEGED=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "--- SKIP") || strings.Count(string(out), "--- PASS") != 3 {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
