package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Options say how to start a server; Start documents the defaults.
type Options struct {
	// Args are the program's arguments (ServeArgs builds toolgate
	// serve's).
	Args []string
	// Config, when not nil, is written to ConfigPath and passed as
	// --config after Args: a string or []byte as it is, any other value
	// as JSON. ConfigPath "" is a file in a temporary directory removed
	// when the process ends.
	Config     any
	ConfigPath string
	// Token, when not empty, is set as TOOLGATE_TOKEN and kept in
	// Server.Token.
	Token string
	// BaseEnv is the environment to start from; nil is this process's
	// (os.Environ). Env is added after it (KEY=value; a later one wins).
	BaseEnv []string
	Env     []string
	// Stdin is the process's standard input; nil is none.
	Stdin io.Reader
	// Log takes the process's stderr (its log); LogFile, when set
	// instead, is a file created for it, as a service manager's journal
	// would take it. With neither the log is kept in memory (Server.Log).
	Log     io.Writer
	LogFile string
	// Lines, when true, keeps what the server prints on stdout after its
	// listening line for Server.Lines (up to 16 lines unread; the server
	// blocks on more).
	Lines bool
	// HealthURL, for a program that prints no listening line (a peer
	// such as envd), is polled instead until it answers; its stdout then
	// goes to the log too.
	HealthURL string
	// Timeout bounds the wait for the listening line or the health
	// answer; 0 is 30 seconds.
	Timeout time.Duration
}

// stopGrace is how long Stop waits after SIGTERM before it kills.
const stopGrace = 10 * time.Second

// ServeArgs are toolgate serve's arguments on a free loopback port in
// workspace, followed by flags.
func ServeArgs(workspace string, flags ...string) []string {
	return append([]string{"serve", "--addr", "127.0.0.1:0", "--workspace", workspace}, flags...)
}

// Server is a process Start started that has said where it listens.
type Server struct {
	// URL is its base URL, http://127.0.0.1:PORT.
	URL string
	// Token is Options.Token.
	Token string

	cmd     *exec.Cmd
	log     *LogBuffer // the log when kept in memory, else nil
	logFile string
	lines   chan string
	exited  chan struct{} // closed when the process has been waited for
	waitErr error         // how it ended, set before exited closes
}

// Start runs bin with o and waits until it prints its listening line.
// ctx bounds the process's life (it is killed when ctx ends, as
// exec.CommandContext does) and the wait; pass context.Background() for
// a process only Stop or Kill ends. A process that exits or stays silent
// past the timeout is an error carrying the end of its log.
func Start(ctx context.Context, bin string, o Options) (*Server, error) {
	args, cleanup, err := withConfig(o)
	if err != nil {
		return nil, err
	}
	s := &Server{Token: o.Token, exited: make(chan struct{}), logFile: o.LogFile}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = environment(o)
	cmd.Stdin = o.Stdin
	cmd.WaitDelay = stopGrace // a descendant holding the log's pipe does not hold Wait
	if err := s.setLog(cmd, o); err != nil {
		cleanup()
		return nil, err
	}
	ready, err := s.start(cmd, o)
	if f, ok := cmd.Stderr.(*os.File); ok && o.LogFile != "" {
		f.Close() // the process has its own descriptor
	}
	if err != nil {
		cleanup()
		return nil, err
	}
	go func() {
		s.waitErr = cmd.Wait()
		cleanup()
		close(s.exited)
	}()
	if o.HealthURL != "" {
		ready = s.pollHealth(ctx, o.HealthURL)
	}
	if err := s.await(ctx, ready, o.Timeout); err != nil {
		return nil, err
	}
	return s, nil
}

// start starts cmd with its stdout watched for the listening line, or
// going to the log with HealthURL.
func (s *Server) start(cmd *exec.Cmd, o Options) (<-chan string, error) {
	if o.HealthURL != "" {
		cmd.Stdout = cmd.Stderr
		s.cmd = cmd
		return nil, cmd.Start()
	}
	// A pipe of our own, not cmd.StdoutPipe: Wait runs as soon as the
	// process is started and must not close what is still to be read.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, err
	}
	s.cmd = cmd
	if o.Lines {
		s.lines = make(chan string, 16)
	}
	return WatchStdout(pr, s.lines), nil
}

// pollHealth gets health every 50 ms until it answers (any status) and
// then sends its origin on the channel, closed if the process exits
// first.
func (s *Server) pollHealth(ctx context.Context, health string) <-chan string {
	u, err := url.Parse(health)
	ready := make(chan string, 1)
	if err != nil {
		close(ready)
		return ready
	}
	go func() {
		defer close(ready)
		for {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, health, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				ready <- u.Scheme + "://" + u.Host
				return
			}
			select {
			case <-s.exited:
				return
			case <-ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return ready
}

// await waits for the server's URL on ready, closed if it will not come.
func (s *Server) await(ctx context.Context, ready <-chan string, timeout time.Duration) error {
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case u, ok := <-ready:
		if ok {
			s.URL = u
			return nil
		}
		select {
		case <-s.exited:
		case <-ctx.Done():
			s.Kill()
			return ctx.Err()
		case <-timer.C: // its stdout ended, but it runs on
			s.Kill()
		}
		return fmt.Errorf("%s exited before listening (%v): %s", s.cmd.Path, s.waitErr, tail(s.Log()))
	case <-timer.C:
		s.Kill()
		return fmt.Errorf("%s did not say where it listens within %s: %s", s.cmd.Path, timeout, tail(s.Log()))
	case <-ctx.Done():
		s.Kill()
		return ctx.Err()
	}
}

// withConfig writes o.Config, when set, and returns the arguments with
// --config, and what removes a temporary config.
func withConfig(o Options) (args []string, cleanup func(), err error) {
	args = o.Args
	cleanup = func() {}
	if o.Config == nil {
		return args, cleanup, nil
	}
	var data []byte
	switch c := o.Config.(type) {
	case string:
		data = []byte(c)
	case []byte:
		data = c
	default:
		if data, err = json.Marshal(c); err != nil {
			return nil, nil, fmt.Errorf("config: %w", err)
		}
	}
	path := o.ConfigPath
	if path == "" {
		dir, err := os.MkdirTemp("", "toolgate-launch-")
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		path = filepath.Join(dir, "toolgate.json")
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		cleanup()
		return nil, nil, err
	}
	return append(append([]string(nil), args...), "--config", path), cleanup, nil
}

func environment(o Options) []string {
	env := o.BaseEnv
	if env == nil {
		env = os.Environ()
	}
	env = append([]string(nil), env...)
	if o.Token != "" {
		env = append(env, "TOOLGATE_TOKEN="+o.Token)
	}
	return append(env, o.Env...)
}

func (s *Server) setLog(cmd *exec.Cmd, o Options) error {
	switch {
	case o.LogFile != "":
		f, err := os.Create(o.LogFile)
		if err != nil {
			return err
		}
		cmd.Stderr = f
	case o.Log != nil:
		cmd.Stderr = o.Log
	default:
		s.log = &LogBuffer{}
		cmd.Stderr = s.log
	}
	return nil
}

// Pid is the process's id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Lines are the lines the server printed on stdout after its listening
// line, with Options.Lines; closed when its stdout ends.
func (s *Server) Lines() <-chan string { return s.lines }

// Log is the server's log so far: kept in memory or read from
// Options.LogFile; "" when it went to Options.Log.
func (s *Server) Log() string {
	if s.log != nil {
		return s.log.String()
	}
	if s.logFile != "" {
		data, _ := os.ReadFile(s.logFile)
		return string(data)
	}
	return ""
}

// Signal sends sig to the process.
func (s *Server) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }

// Stop asks the process to end (SIGTERM), kills it if it has not within
// 10 seconds, and returns how it ended (nil for a clean exit). It may be
// called again, and after Kill.
func (s *Server) Stop() error { return s.StopWithin(stopGrace) }

// StopWithin is Stop with another grace period.
func (s *Server) StopWithin(grace time.Duration) error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-s.exited:
	case <-timer.C:
		s.Kill()
	}
	return s.waitErr
}

// Kill ends the process at once (SIGKILL) and waits for it.
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// Exited is closed once the process has ended.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// tail is the end of a log, for an error's message.
func tail(log string) string {
	const keep = 4096
	return log[max(0, len(log)-keep):]
}
