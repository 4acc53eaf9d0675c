package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"sync"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/process"
)

// loginEnvs are the login environments of the sessions' login commands
// (execute_command's login), each captured once, as Codex takes its
// shell snapshot once a session: the first login command of a session
// in a shell and a sandbox view runs the login profile
// (process.LoginEnv); the next ones run as plain shell -c lines with
// what it left. A session's are dropped when it ends. Reading the
// profile for each command instead cost a sandboxed `true` 2.4-3.4
// times its time with /etc/profile alone (BenchmarkExecuteCommandLogin,
// ./handlers/, docs/benchmarks.md).
type loginEnvs struct {
	mu       sync.Mutex
	sessions map[string]*sessionLoginEnvs
}

// sessionLoginEnvs are one session's login environments, by loginKey.
type sessionLoginEnvs struct {
	// ctx ends with the session: a capture still running then stops.
	ctx   context.Context
	byKey map[string]*loginEnv
}

// loginEnv is one captured login environment as a command gets it
// (CommandConfig.LoginEnvFor: what the rule drops is not kept); env is
// nil when the capture failed (the commands then run without it).
type loginEnv struct {
	done chan struct{}
	env  []string
}

// loginKey names what a login environment depends on: the shell, the
// sandbox view the profile is read in (what HOME holds there) and the
// environment the login shell starts from.
func loginKey(shell string, confined bool, view string, env []string) string {
	h := sha256.New()
	for _, s := range append([]string{shell, strconv.FormatBool(confined), view}, env...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// forCall is the whole environment of a login command of call that
// runs in shell in dir, base the one of a command without login: the
// login environment under base's rule (CommandConfig.LoginEnvFor),
// captured now if the session has none for this shell and view yet,
// else the one captured before (waited for while another command
// captures it). nil means there is none: the capture failed or timed
// out (logged once, when it did), or ctx ended while waiting. An error
// refuses the command (its start could not be recorded, its sandbox
// cannot be set up).
func (l *loginEnvs) forCall(ctx context.Context, call *tool.Call, cfg *tool.CommandConfig, shell, dir string, base []string) ([]string, error) {
	sb, confine, err := call.Confinement(dir)
	if err != nil {
		return nil, err
	}
	// The profile runs before the command: an effect of the call, so
	// its start is recorded first.
	if err := call.Recorded(); err != nil {
		return nil, err
	}
	// The capture runs as a command of the session would: in its kept
	// sandbox, which then serves the command (internal/sandbox/reuse.go).
	confine.Session = call.SessionID
	opts := process.Options{Shell: shell, Dir: dir, Env: base, Sandbox: sb, Confine: confine, Timeout: cfg.LoginTimeout}
	capture := func(ctx context.Context) []string {
		env, err := process.LoginEnv(ctx, opts)
		if err != nil {
			if call.Logger != nil {
				call.Logger.Warn("login environment not captured; login commands run without the profile's environment",
					"shell", shellName(shell), "error", err)
			}
			return nil
		}
		return cfg.LoginEnvFor(env, call.CommandEnv)
	}
	if call.SessionDone == nil {
		return capture(ctx), nil // no session to keep it in
	}
	view := ""
	if sb != nil {
		view = confine.View()
	}
	e, fresh, sessCtx := l.entry(call, loginKey(shellName(shell), sb != nil, view, base))
	if fresh {
		// Captured apart from the call, so that a call cancelled
		// meanwhile does not leave the session without one; bounded
		// by the capture's timeout and the session's end.
		go func() {
			e.env = capture(sessCtx)
			close(e.done)
		}()
	}
	select {
	case <-e.done:
		return slices.Clone(e.env), nil // each run's own: a run may append to it
	case <-ctx.Done():
		return nil, nil
	}
}

// entry is the session's login environment for key, and whether it is
// new (the caller captures it). A session's first entry starts its
// watch for the session's end.
func (l *loginEnvs) entry(call *tool.Call, key string) (*loginEnv, bool, context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sessions[call.SessionID]
	if s == nil {
		ctx, cancel := context.WithCancel(context.Background())
		s = &sessionLoginEnvs{ctx: ctx, byKey: map[string]*loginEnv{}}
		if l.sessions == nil {
			l.sessions = map[string]*sessionLoginEnvs{}
		}
		l.sessions[call.SessionID] = s
		go l.dropAtEnd(call.SessionID, s, call.SessionDone, cancel)
	}
	if e := s.byKey[key]; e != nil {
		return e, false, s.ctx
	}
	e := &loginEnv{done: make(chan struct{})}
	s.byKey[key] = e
	return e, true, s.ctx
}

// dropAtEnd forgets the session's login environments when it ends, and
// stops a capture still running.
func (l *loginEnvs) dropAtEnd(sid string, s *sessionLoginEnvs, done <-chan struct{}, cancel context.CancelFunc) {
	<-done
	cancel()
	l.mu.Lock()
	if l.sessions[sid] == s {
		delete(l.sessions, sid)
	}
	l.mu.Unlock()
}

// shellName is the shell a command runs in, process.DefaultShell for "".
func shellName(shell string) string {
	if shell == "" {
		return process.DefaultShell
	}
	return shell
}
