package mcphub

import (
	"fmt"
	"os/exec"
)

// processExit is how a stdio server's process ended.
type processExit struct {
	code   int // -1 when a signal ended it
	stderr string
}

// exited records how the stdio server's process ended, once the session
// over it is closed (closing waits for the process), and adds it to the
// connection's error: "client is closing: EOF" alone never says why a
// server failed to start. Other transports' errors pass unchanged.
func (s *server) exited(err error) error {
	s.mu.Lock()
	cmd, prepared := s.proc, s.prepared
	s.proc, s.prepared = nil, nil
	s.mu.Unlock()
	if limit := prepared.Finish(); limit != "" {
		err = fmt.Errorf("%w (the sandbox ended the server at %s)", err, limit)
	}
	if cmd == nil || cmd.ProcessState == nil {
		return err
	}
	ex := &processExit{code: cmd.ProcessState.ExitCode()}
	if w, ok := cmd.Stderr.(*logWriter); ok {
		ex.stderr = w.Tail()
	}
	s.mu.Lock()
	s.exit = ex
	s.mu.Unlock()
	return fmt.Errorf("%w (the server %s)", err, describeExit(cmd, ex))
}

func describeExit(cmd *exec.Cmd, ex *processExit) string {
	what := fmt.Sprintf("exited with code %d", ex.code)
	if ex.code < 0 {
		what = "was ended by " + cmd.ProcessState.String()
	}
	if ex.stderr != "" {
		what += "; stderr ends: " + lastLine(ex.stderr)
	}
	return what
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}
