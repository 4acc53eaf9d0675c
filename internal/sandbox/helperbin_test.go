package sandbox

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

// builtHelper builds cmd/toolgate-sandbox once per test binary into a
// directory of its own and returns its path. It is built without cgo, as
// the Dockerfile and docs/sandbox.md build it: a static binary, with no
// dynamic loader, libc or cgo runtime to start (BenchmarkSequentialSandboxedTrue's
// cgo-helper variant is the helper built with cgo).
var builtHelper = sync.OnceValues(func() (string, error) { return buildHelper(false) })

// builtCgoHelper is cmd/toolgate-sandbox built with cgo (go build's
// default where a C compiler is found): dynamically linked, since psx
// (through go-landlock) and net have cgo files.
var builtCgoHelper = sync.OnceValues(func() (string, error) { return buildHelper(true) })

// builtDirs are the directories of the helpers built, removed by TestMain.
var builtDirs struct {
	sync.Mutex
	dirs []string
}

func buildHelper(cgo bool) (string, error) {
	dir, err := os.MkdirTemp("", "toolgate-sandbox-bin-")
	if err != nil {
		return "", err
	}
	builtDirs.Lock()
	builtDirs.dirs = append(builtDirs.dirs, dir)
	builtDirs.Unlock()
	bin := filepath.Join(dir, helperName)
	cmd := exec.Command("go", "build", "-o", bin, "github.com/toolgate/toolgate/cmd/toolgate-sandbox")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if cgo {
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", &buildError{err, string(out)}
	}
	return bin, nil
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

func helperBinary(tb testing.TB) string {
	tb.Helper()
	bin, err := builtHelper()
	if err != nil {
		tb.Fatalf("go build ./cmd/toolgate-sandbox: %v", err)
	}
	return bin
}

// TestHelperBinaryIsFoundBesideToolgate checks which helper toolgate
// starts: toolgate-sandbox installed beside its binary when it speaks the
// same spec version, toolgate's own binary when it is missing or of
// another version.
func TestHelperBinaryIsFoundBesideToolgate(t *testing.T) {
	bin := helperBinary(t)
	dir := filepath.Dir(bin)
	exe := filepath.Join(dir, "toolgate")
	if got := findHelper(exe); got != bin {
		t.Errorf("with toolgate-sandbox beside it: helper %s, want %s", got, bin)
	}
	alone := filepath.Join(t.TempDir(), "toolgate")
	if got := findHelper(alone); got != alone {
		t.Errorf("without toolgate-sandbox: helper %s, want toolgate itself", got)
	}
	other := t.TempDir()
	writeFile(t, other, helperName, "#!/bin/sh\necho toolgate-sandbox-helper 0\n")
	if err := os.Chmod(filepath.Join(other, helperName), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := findHelper(filepath.Join(other, "toolgate")); got != filepath.Join(other, "toolgate") {
		t.Errorf("with a toolgate-sandbox of another version: helper %s, want toolgate itself", got)
	}
}

// TestHelperBinaryConfines runs commands through the small helper binary
// as toolgate does once it is installed: writes outside the workspace and
// reading ~/.ssh fail, and the command is in the run's limit cgroups.
func TestHelperBinaryConfines(t *testing.T) {
	bin := helperBinary(t)
	for _, mode := range ways {
		t.Run(mode, func(t *testing.T) {
			base := onDisk(t)
			ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
			_ = os.Mkdir(ws, 0o755)
			writeFile(t, home, ".ssh/id_ed25519", "SSH-SECRET-KEY")
			s := newTest(t, Config{Mode: mode}, home)
			s.helper = bin
			if h := s.Info().Helper; h != helperName {
				t.Errorf("Info().Helper = %q, want %q", h, helperName)
			}
			o := runIn(t, s, Run{Workspace: ws}, `echo x > ../outside; cat ~/.ssh/id_ed25519; cat /proc/self/cgroup; echo done`)
			o2 := runIn(t, s, Run{Workspace: ws}, `cat `+filepath.Join(home, ".ssh/id_ed25519"))
			if _, err := os.Stat(filepath.Join(base, "outside")); err == nil {
				t.Errorf("written outside the workspace through the helper binary:\n%s", o.out)
			}
			if strings.Contains(o.out+o2.out, "SSH-SECRET-KEY") {
				t.Errorf("~/.ssh read through the helper binary:\n%s%s", o.out, o2.out)
			}
			if !strings.Contains(o.out, "done") {
				t.Errorf("the command did not run:\n%s", o.out)
			}
			if s.cgroups != nil && !strings.Contains(o.out, "toolgate-limits-") {
				t.Errorf("the command is not in its limit cgroups:\n%s", o.out)
			}
		})
	}
}

// TestHelperBinaryRelaysNetworkAllow checks the network_allow relay, which
// the helper starts by re-executing its own binary: through
// toolgate-sandbox, curl inside still reaches a listed host.
func TestHelperBinaryRelaysNetworkAllow(t *testing.T) {
	bin := helperBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("hello from outside")) })}
	go srv.Serve(ln)
	defer srv.Close()
	s := newTest(t, Config{Mode: ModeBwrap, NetworkAllow: []string{"localhost"}}, "")
	if s.Mode() != InForceBwrap {
		t.Skip("network_allow needs bubblewrap")
	}
	s.helper = bin
	o := runIn(t, s, Run{Workspace: t.TempDir()}, "curl -sS --max-time 10 http://localhost:"+strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)+"/")
	if !strings.Contains(o.out, "hello from outside") {
		t.Errorf("the listed host was not reached through toolgate-sandbox's relay:\n%s", o.out)
	}
}

// TestHelperRefusesAnUnknownSpecField checks that a helper of an older
// version fails closed on a restriction it does not know instead of
// running the command without it.
func TestHelperRefusesAnUnknownSpecField(t *testing.T) {
	bin := helperBinary(t)
	out, err := exec.Command(bin, helper.Marker, `{"limits":{},"deny_everything":true}`, "echo", "RAN").CombinedOutput()
	if err == nil || strings.Contains(string(out), "RAN") {
		t.Errorf("a spec with an unknown field ran the command: err %v, output %s", err, out)
	}
	if !strings.Contains(string(out), "bad helper spec") {
		t.Errorf("no clear refusal: %s", out)
	}
}

// TestMain removes the helper binary built for the tests; a test binary
// started as a stand-in toolgate (standInEnvVar) only plays its part.
func TestMain(m *testing.M) {
	playStandIn()
	code := m.Run()
	builtDirs.Lock()
	for _, dir := range builtDirs.dirs {
		_ = os.RemoveAll(dir)
	}
	builtDirs.Unlock()
	os.Exit(code)
}
