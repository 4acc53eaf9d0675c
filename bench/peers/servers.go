package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is one running server and its two calls.
type server struct {
	name    string
	cmd     *exec.Cmd
	peer    bool                  // a peer, not toolgate
	read    func(id string) error // reads one_kb.txt
	command func(id string) error // starts `true` and waits for its end
	client  *http.Client
}

func (s *server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// cpu is the process's CPU time, and the same with the children it has
// reaped (the commands it ran), from /proc/PID/stat.
func (s *server) cpu() (own, withChildren time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14, stime 15, cutime 16,
	// cstime 17.
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 15 {
		return 0, 0, errors.New("short /proc stat")
	}
	var ticks [4]int64
	for i := range ticks {
		if ticks[i], err = strconv.ParseInt(f[11+i], 10, 64); err != nil {
			return 0, 0, err
		}
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	own = time.Duration(ticks[0]+ticks[1]) * tick
	return own, own + time.Duration(ticks[2]+ticks[3])*tick, nil
}

func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}, Timeout: 30 * time.Second}
}

// startToolgate starts toolgate serve on a free loopback port with the
// given config, its request log going to a file as a service manager's
// journal would take it.
func startToolgate(ctx context.Context, bin, name, dir, config string, args []string) (*server, error) {
	cfg := filepath.Join(dir, "toolgate.json")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "toolgate.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--workspace", filepath.Join(dir, "ws"), "--config", cfg}, args...)...)
	cmd.Env = append(os.Environ(), "TOOLGATE_TOKEN=peers-bench-token", "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: name, cmd: cmd, client: newClient()}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "toolgate listening on "); ok {
				url <- u
			}
		}
		close(url)
	}()
	select {
	case u, ok := <-url:
		if !ok {
			return s, fmt.Errorf("%s exited; its log is in %s", name, logf.Name())
		}
		tg := &toolgateCalls{url: u, token: "peers-bench-token", client: s.client}
		s.read, s.command = tg.read, tg.command
	case <-time.After(30 * time.Second):
		return s, fmt.Errorf("%s did not start", name)
	}
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
	logf, err := os.Create(filepath.Join(dir, "envd.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, bin, "-isnotfc", "-no-cgroups", "-port", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: "envd", cmd: cmd, peer: true, client: newClient()}
	me, err := user.Current()
	if err != nil {
		return s, err
	}
	e := &envdCalls{url: fmt.Sprintf("http://127.0.0.1:%d", port), dir: filepath.Join(dir, "ws"), user: me.Username, client: s.client}
	s.read, s.command = e.read, e.command
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := s.client.Get(e.url + "/health")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("envd did not answer: %v (its log: %s)", err, logf.Name())
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
