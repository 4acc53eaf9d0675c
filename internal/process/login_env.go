package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// LoginEnvTimeout bounds the capture of a login environment when Options
// gives no Timeout: a profile that waits (for input it cannot get, for a
// network) is killed after it. Codex bounds its shell snapshot the same
// (SNAPSHOT_TIMEOUT, 10 s, codex-rs/core/src/shell_snapshot.rs).
const LoginEnvTimeout = 10 * time.Second

// loginEnvMarker ends what the login profile printed and starts the
// environment, in LoginEnv's output.
const loginEnvMarker = "\x00toolgate-login-env\x00"

// loginEnvScript is the line LoginEnv's login shell runs once the
// profile is read: the marker, then the environment, each variable ended
// by a NUL (a value may hold newlines).
const loginEnvScript = `printf '\000toolgate-login-env\000' && exec env -0`

// maxLoginEnv bounds the output LoginEnv reads: a profile that prints
// without end fails the capture instead of filling memory.
const maxLoginEnv = 4 << 20

// loginEnvDropped are variables of the capturing shell itself, not of the
// profile: where it ran (Codex leaves PWD and OLDPWD out of its snapshot
// too), its nesting level and the program env was started as. The
// command's own shell sets them again.
var loginEnvDropped = []string{"PWD", "OLDPWD", "SHLVL", "_"}

// LoginEnv is the environment o.Shell's login profile sets up, captured
// the way Codex takes its shell snapshot: the shell starts as a login
// shell (shell -l -c) with o.Env, in o.Dir, confined as o.Sandbox and
// o.Confine say (so the profile read is the one under HOME as a command
// run so sees it), its input on /dev/null, reads the system's and the
// user's profile, and prints its environment. What the profile printed
// is dropped. o.Timeout bounds it (LoginEnvTimeout when 0); a run that
// times out, fails or prints no environment is an error. o.Command,
// o.Stdin, o.Terminal and o.Output are not used. The environment is as
// the profile left it, unfiltered: the caller decides what of it a
// command gets.
func LoginEnv(ctx context.Context, o Options) ([]string, error) {
	if o.Timeout <= 0 {
		o.Timeout = LoginEnvTimeout
	}
	var (
		mu   sync.Mutex
		out  []byte
		over bool
	)
	o.Command, o.loginShell, o.Stdin, o.Terminal = loginEnvScript, true, nil, nil
	o.OnBytes = nil
	o.LiveRate, o.LiveBurst = maxLoginEnv, maxLoginEnv // every chunk reaches OnChunk
	o.OnChunk = func(stream, chunk string) {
		mu.Lock()
		defer mu.Unlock()
		if stream != "stdout" || over {
			return
		}
		if len(out)+len(chunk) > maxLoginEnv {
			over, out = true, nil
			return
		}
		out = append(out, chunk...)
	}
	o.Output = NewOutput(OutputLimits{Memory: 64 << 10, Full: maxLoginEnv})
	defer func() { _ = o.Output.Remove() }()
	res, err := Run(ctx, o)
	_ = o.Output.Close()
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case res.TimedOut:
		return nil, fmt.Errorf("the login shell did not finish within %s", o.Timeout)
	case res.Cancelled:
		return nil, context.Cause(ctx)
	case res.Limit != "":
		return nil, fmt.Errorf("the login shell reached %s of the sandbox", res.Limit)
	case res.Signal != "":
		return nil, fmt.Errorf("the login shell was ended by %s", res.Signal)
	case res.ExitCode != 0:
		return nil, fmt.Errorf("the login shell exited with status %d", res.ExitCode)
	case over:
		return nil, fmt.Errorf("the login shell printed more than %d bytes", maxLoginEnv)
	}
	return parseLoginEnv(out)
}

// parseLoginEnv reads LoginEnv's output: what follows the marker,
// variables ended by NULs, without loginEnvDropped.
func parseLoginEnv(out []byte) ([]string, error) {
	i := bytes.Index(out, []byte(loginEnvMarker))
	if i < 0 {
		return nil, errors.New("the login shell printed no environment")
	}
	var env []string
	for _, kv := range strings.Split(string(out[i+len(loginEnvMarker):]), "\x00") {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || slices.Contains(loginEnvDropped, name) {
			continue
		}
		env = append(env, kv)
	}
	return env, nil
}
