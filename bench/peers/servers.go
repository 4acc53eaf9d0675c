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
	peer    bool                  // a peer, not toolgate
	read    func(id string) error // reads one_kb.txt
	command func(id string) error // starts `true` and waits for its end
	client  *http.Client
}

func (s *server) stop() { _ = s.proc.Stop() }

// cpu is the process's CPU time, and the same with the children it has
// reaped (the commands it ran).
func (s *server) cpu() (own, withChildren time.Duration, err error) { return s.proc.CPU() }

func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}, Timeout: 30 * time.Second}
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
	s := &server{name: name, proc: tg, client: newClient()}
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
	s := &server{name: "envd", proc: p, peer: true, client: newClient()}
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
