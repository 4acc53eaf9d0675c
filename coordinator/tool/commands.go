package tool

import (
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/internal/process"
)

// CommandConfig configures execute_command: its timeouts, how much output
// it keeps and the environment its child processes get.
type CommandConfig struct {
	// DefaultTimeoutSeconds bounds a command that asks for no timeout
	// (default 30).
	DefaultTimeoutSeconds int `json:"default_timeout_seconds"`
	// LongTimeoutSeconds replaces the default for commands that install
	// packages, build or run tests (default 300).
	LongTimeoutSeconds int `json:"long_timeout_seconds"`
	// MaxTimeoutSeconds caps the timeout a call may ask for (default 3600).
	MaxTimeoutSeconds int `json:"max_timeout_seconds"`
	// PassEnv names variables (path.Match patterns, e.g. "NPM_TOKEN" or
	// "AWS_*") that pass to commands although their names look secret.
	PassEnv []string `json:"pass_env"`
	// Env adds or overrides variables in every command's environment.
	Env map[string]string `json:"env"`
	// MaxOutputBytes caps the full output a call keeps for later retrieval
	// (default 64 MiB); the result itself is always shorter.
	MaxOutputBytes int64 `json:"max_output_bytes"`
	// OutputDir is where full outputs larger than the result are spilled
	// (default: the system's temporary directory).
	OutputDir string `json:"output_dir"`
	// MaxSpillBytes caps the bytes the spilled outputs of all calls hold
	// together (default 1 GiB; negative: no cap).
	MaxSpillBytes int64 `json:"max_spill_bytes"`
	// Spills is the server's spill directory under OutputDir and the cap
	// on it; nil spills to OutputDir itself. Set at start-up.
	Spills *process.SpillArea `json:"-"`
	// Outputs are the sessions' output files (a command's whole output,
	// a background job's), kept in the spill area; nil keeps none. Set
	// at start-up.
	Outputs OutputFiles `json:"-"`
	// Environ is the environment commands start from; nil means the
	// server's own (os.Environ). Tests set it.
	Environ func() []string `json:"-"`
	// LoginTimeout bounds the capture of a login environment (a login
	// command's, see LoginEnvFor; default DefaultLoginTimeout). Tests
	// set it.
	LoginTimeout time.Duration `json:"-"`
}

// OutputFiles are the sessions' output files (internal/outfiles.Area):
// files a session's own reader opens, one directory per session.
type OutputFiles interface {
	// Save writes r to session sid's file rel, removed when done is
	// closed, and returns its path and size.
	Save(sid string, done <-chan struct{}, rel string, r io.Reader) (string, int64, error)
	// Open opens session sid's file at path (absolute) for reading, and
	// returns its name within the session's directory.
	Open(sid, path string) (*os.File, string, error)
	// Rel reports whether path has the form of session sid's file.
	Rel(sid, path string) (string, bool)
	// Path is the absolute path of session sid's file rel.
	Path(sid, rel string) string
}

// ServerTokenVar is the variable the server reads its bearer token from.
// It never reaches a child process, whatever the configuration says.
const ServerTokenVar = "TOOLGATE_TOKEN"

// Defaults of CommandConfig.
const (
	DefaultCommandTimeout = 30 * time.Second
	LongCommandTimeout    = 300 * time.Second
	MaxCommandTimeout     = time.Hour
	DefaultMaxOutputBytes = 64 << 20
	DefaultMaxSpillBytes  = 1 << 30
	// DefaultLoginTimeout is Codex's bound on its shell snapshot.
	DefaultLoginTimeout = process.LoginEnvTimeout
)

// secretWords mark variable names that probably hold credentials.
var secretWords = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"}

// baseEnv keeps commands from waiting on a terminal nobody watches; the
// server's environment and Env override it.
var baseEnv = map[string]string{"GIT_TERMINAL_PROMPT": "0", "PAGER": "cat", "GIT_PAGER": "cat"}

// SecretName reports whether a variable name looks like it holds a
// credential (case-insensitive *KEY*, *SECRET*, *TOKEN*, *PASSWORD*,
// *PASSWD*, *CREDENTIAL*).
func SecretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// Timeout is how long a command may run: the requested seconds (capped by
// MaxTimeoutSeconds) or, when none is requested, the default for its kind.
func (c *CommandConfig) Timeout(requestedSeconds int, longRunning bool) time.Duration {
	maxT := seconds(c.MaxTimeoutSeconds, MaxCommandTimeout)
	if requestedSeconds > 0 {
		return min(time.Duration(requestedSeconds)*time.Second, maxT)
	}
	if longRunning {
		return min(seconds(c.LongTimeoutSeconds, LongCommandTimeout), maxT)
	}
	return min(seconds(c.DefaultTimeoutSeconds, DefaultCommandTimeout), maxT)
}

// SpillCap is the cap on all spilled outputs together, 0 for none.
func (c *CommandConfig) SpillCap() int64 {
	switch {
	case c.MaxSpillBytes < 0:
		return 0
	case c.MaxSpillBytes > 0:
		return c.MaxSpillBytes
	}
	return DefaultMaxSpillBytes
}

// OutputCap is the largest full output a call keeps.
func (c *CommandConfig) OutputCap() int64 {
	if c.MaxOutputBytes > 0 {
		return c.MaxOutputBytes
	}
	return DefaultMaxOutputBytes
}

func seconds(n int, def time.Duration) time.Duration {
	if n > 0 {
		return time.Duration(n) * time.Second
	}
	return def
}

// ChildEnv is the environment of a command: the server's environment
// without the server token and without secret-looking variables that
// PassEnv does not name, plus Env. The result is sorted by name.
func (c *CommandConfig) ChildEnv() []string { return c.ChildEnvFor(nil) }

// ChildEnvFor is ChildEnv for a command of a session whose dialect sets
// variables of its own (Call.CommandEnv, as its client sets them for its
// commands): they override the server's environment, and Env, the
// deployment's word, overrides them.
func (c *CommandConfig) ChildEnvFor(dialect map[string]string) []string {
	environ := c.Environ
	if environ == nil {
		environ = os.Environ
	}
	from := environ()
	// The result depends on nothing but from, Env and PassEnv: the last
	// one is kept and copied while they stay the same, as they do between
	// one command and the next. Speed only: BenchmarkChildEnv
	// (./coordinator/tool/, docs/benchmarks.md).
	if m := lastChildEnv.Load(); m != nil && slices.Equal(m.from, from) && maps.Equal(m.env, c.Env) && slices.Equal(m.passEnv, c.PassEnv) && maps.Equal(m.dialect, dialect) {
		return slices.Clone(m.out)
	}
	out := c.childEnv(from, dialect)
	lastChildEnv.Store(&childEnvMemo{from: slices.Clone(from), env: maps.Clone(c.Env), passEnv: slices.Clone(c.PassEnv), dialect: maps.Clone(dialect), out: out})
	return slices.Clone(out)
}

// childEnvMemo is one ChildEnv result and what it was made from.
type childEnvMemo struct {
	from    []string
	env     map[string]string
	passEnv []string
	dialect map[string]string
	out     []string
}

var lastChildEnv atomic.Pointer[childEnvMemo]

// LoginEnvFor is ChildEnvFor for a command that runs with the
// environment its shell's login profile set up (login, captured once a
// session by process.LoginEnv): that environment stands where the
// server's stands, under the same rule. Secret-looking variables the
// profile exports are dropped unless PassEnv names them, the server
// token always; the dialect's variables and then Env override the
// profile's, as Codex sets its own again over its shell snapshot.
func (c *CommandConfig) LoginEnvFor(login []string, dialect map[string]string) []string {
	return c.childEnv(login, dialect)
}

func (c *CommandConfig) childEnv(from []string, dialect map[string]string) []string {
	vars := map[string]string{}
	for k, v := range baseEnv {
		vars[k] = v
	}
	for _, kv := range from {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || (SecretName(name) && !c.passes(name)) {
			continue
		}
		vars[name] = value
	}
	for k, v := range dialect {
		vars[k] = v
	}
	for k, v := range c.Env {
		vars[k] = v
	}
	delete(vars, ServerTokenVar)
	delete(vars, "TOOLGATE_TOKEN_FD") // a re-executed server's token pipe: closed, but nobody's business
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func (c *CommandConfig) passes(name string) bool {
	for _, p := range c.PassEnv {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
