package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/internal/launch"
)

// server is one running server and its two calls.
type server struct {
	name    string
	proc    *launch.Server
	peer    bool // a peer, not toolgate
	read    call // reads one_kb.txt
	command call // starts `true` and waits for its end
	client  *http.Client
	clock   *phaseClock // the client's stamps of its last call
}

// call makes one request and reads its whole answer, the part that is
// timed; check then decodes and verifies the answer, outside the timing,
// so that a server's latency does not include the load generator's own
// decoding (toolgate's JSON answer took it 16-29 µs per read, envd's raw
// bytes nothing).
type call func(id string) (check func() error, err error)

// do makes the call and checks its answer.
func (c call) do(id string) error {
	check, err := c(id)
	if err == nil {
		err = check()
	}
	return err
}

func (s *server) stop() { _ = s.proc.Stop() }

// cpu is the process's CPU time, and the same with the children it has
// reaped (the commands it ran).
func (s *server) cpu() (own, withChildren time.Duration, err error) { return s.proc.CPU() }

// newClient is a server's client, its calls stamped on clock.
func newClient(clock *phaseClock) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
	return &http.Client{Transport: stampedTransport{next: tr, clock: clock}, Timeout: 30 * time.Second}
}

// startToolgate starts toolgate serve on a free loopback port with the
// given config, its request log going to a file as a service manager's
// journal would take it.
func startToolgate(ctx context.Context, bin, name, dir, config string, args []string) (*server, error) {
	tg, err := launch.Start(ctx, bin, launch.Options{
		Args:   launch.ServeArgs(filepath.Join(dir, "ws"), args...),
		Config: config, ConfigPath: filepath.Join(dir, "toolgate.json"),
		Token:   "peers-bench-token",
		Env:     []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state")},
		LogFile: filepath.Join(dir, "toolgate.log"),
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	clock := &phaseClock{}
	s := &server{name: name, proc: tg, client: newClient(clock), clock: clock}
	calls := &toolgateCalls{url: tg.URL, token: tg.Token, client: s.client}
	s.read, s.command = calls.read, calls.command
	return s, nil
}

// startEnvd starts envd outside Firecracker (-isnotfc), without cgroups,
// on a free loopback port (the snapshot is patched to bind loopback only)
// and waits until it answers.
func startEnvd(ctx context.Context, bin, dir string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	me, err := user.Current()
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	p, err := launch.Start(ctx, bin, launch.Options{
		Args:      []string{"-isnotfc", "-no-cgroups", "-port", strconv.Itoa(port)},
		LogFile:   filepath.Join(dir, "envd.log"),
		HealthURL: url + "/health",
	})
	if err != nil {
		return nil, fmt.Errorf("envd: %w", err)
	}
	clock := &phaseClock{}
	s := &server{name: "envd", proc: p, peer: true, client: newClient(clock), clock: clock}
	e := &envdCalls{url: url, dir: filepath.Join(dir, "ws"), user: me.Username, client: s.client}
	s.read, s.command = e.read, e.command
	return s, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
