package hooks

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// Input is what every hook receives, as JSON on stdin or in the POST
// body: Claude Code's hook input.
type Input struct {
	SessionID      string          `json:"session_id"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	ToolResponse   any             `json:"tool_response,omitempty"`
}

// Decision orders what hooks may say: the strongest wins.
type Decision int

const (
	None Decision = iota
	Allow
	Ask
	Deny
)

func (d Decision) String() string {
	return [...]string{"none", "allow", "ask", "deny"}[d]
}

// Verdict is one hook's answer, or all matching hooks' answers
// combined.
type Verdict struct {
	Decision Decision
	Reason   string
	Updated  json.RawMessage // PreToolUse: the input to run instead
	Context  []string        // text appended to the tool_result
	Failed   []string        // hooks that failed, for fail-closed
}

// Runner runs the configured and the workspace's hooks.
type Runner struct {
	cfg       Config
	pre, post []compiledMatcher
	dir       string // the workspace, hooks' working directory
	env       func() []string
	// timeout is a hook's time limit when its own Timeout is unset.
	timeout time.Duration
	// confine is the sandbox of a command hook and what it may see
	// (SetConfine).
	confine func() (*sandbox.Sandbox, sandbox.Run, error)
	client  *http.Client
	runs    *prometheus.CounterVec
	logger  *slog.Logger
}

type compiledMatcher struct {
	re    *regexp.Regexp
	hooks []Spec
}

// Options are what a Runner needs besides its Config.
type Options struct {
	// Dir is the workspace, the hooks' working directory ("" for none).
	Dir string
	// Env gives a hook command's environment.
	Env func() []string
	// DefaultTimeout is a hook's time limit when its Timeout is unset.
	DefaultTimeout time.Duration
	Registerer     prometheus.Registerer
	Logger         *slog.Logger
}

// New builds the runner of cfg's hooks and registers its metric
// (toolgate_hook_runs_total) with o.Registerer.
func New(cfg Config, o Options) *Runner {
	h := &Runner{cfg: cfg, client: &http.Client{}, logger: o.Logger, env: o.Env, dir: o.Dir, timeout: o.DefaultTimeout,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_hook_runs_total",
			Help: "Hook runs, by event and outcome (allow, ask, deny, none, error, timeout).",
		}, []string{"event", "outcome"})}
	o.Registerer.MustRegister(h.runs)
	for _, ev := range []string{PreToolUse, PostToolUse} {
		for _, o := range []string{"allow", "ask", "deny", "none", "error", "timeout"} {
			h.runs.WithLabelValues(ev, o)
		}
	}
	compile := func(ms []Matcher) []compiledMatcher {
		var out []compiledMatcher
		for _, m := range ms {
			out = append(out, compiledMatcher{re: matcherRE(m.Matcher), hooks: m.Hooks})
		}
		return out
	}
	h.pre, h.post = compile(h.cfg.PreToolUse), compile(h.cfg.PostToolUse)
	return h
}

// SetConfine sets how a command hook is confined: the sandbox and what
// the hook may see. Without it, command hooks run unconfined.
func (h *Runner) SetConfine(confine func() (*sandbox.Sandbox, sandbox.Run, error)) {
	h.confine = confine
}

// matching lists the hooks of an event that apply to a call known by the
// given names (the name the model used and the registered one).
func (h *Runner) matching(event string, names ...string) []Spec {
	ms := h.pre
	if event == PostToolUse {
		ms = h.post
	}
	var out []Spec
	for _, m := range ms {
		for _, n := range names {
			if m.re.MatchString(n) {
				out = append(out, m.hooks...)
				break
			}
		}
	}
	if h.cfg.TrustWorkspace && h.dir != "" {
		if p := filepath.Join(h.dir, ".clinerules", "hooks", event); isExecutable(p) {
			out = append(out, Spec{Type: "command", Command: shellQuote(p)})
		}
	}
	return out
}

// Idle reports whether no hook can run for the event, whatever the call:
// none is configured for it and the workspace's own hooks are not
// trusted. Calls then skip building the hooks' input.
func (h *Runner) Idle(event string) bool {
	ms := h.pre
	if event == PostToolUse {
		ms = h.post
	}
	return len(ms) == 0 && !(h.cfg.TrustWorkspace && h.dir != "")
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Run runs every matching hook at once and combines their verdicts: the
// strongest decision wins (deny over ask over allow), the first updated
// input in config order is kept and every context is appended.
func (h *Runner) Run(ctx context.Context, in Input, names ...string) Verdict {
	specs := h.matching(in.HookEventName, names...)
	if len(specs) == 0 {
		return Verdict{}
	}
	body, err := json.Marshal(in)
	if err != nil {
		return Verdict{Failed: []string{"encode hook input: " + err.Error()}}
	}
	verdicts := make([]Verdict, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() { verdicts[i] = h.runOne(ctx, in, spec, body) })
	}
	wg.Wait()
	var all Verdict
	for _, v := range verdicts {
		if v.Decision > all.Decision {
			all.Decision, all.Reason = v.Decision, v.Reason
		}
		if all.Updated == nil && v.Updated != nil {
			all.Updated = v.Updated
		}
		all.Context = append(all.Context, v.Context...)
		all.Failed = append(all.Failed, v.Failed...)
	}
	if all.Decision == Deny {
		all.Updated = nil
	}
	return all
}

// runOne runs one hook, counts and logs it.
func (h *Runner) runOne(ctx context.Context, in Input, spec Spec, body []byte) Verdict {
	start := time.Now()
	var v Verdict
	var outcome string
	if spec.Type == "http" {
		v, outcome = h.runHTTP(ctx, spec, body)
	} else {
		v, outcome = h.runCommand(ctx, spec, body)
	}
	h.runs.WithLabelValues(in.HookEventName, outcome).Inc()
	target := spec.Command
	if spec.Type == "http" {
		target = spec.URL
	}
	level := slog.LevelInfo
	if len(v.Failed) > 0 {
		level = slog.LevelWarn
	}
	h.logger.Log(ctx, level, "hook", "event", in.HookEventName, "tool", in.ToolName, "tool_use_id", in.ToolUseID,
		"session_id", in.SessionID, "hook", target, "outcome", outcome, "duration_ms", time.Since(start).Milliseconds(),
		"failure", strings.Join(v.Failed, "; "))
	return v
}
