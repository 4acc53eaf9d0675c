package coordinator

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

// hookInput is what every hook receives, as JSON on stdin or in the POST
// body: Claude Code's hook input.
type hookInput struct {
	SessionID      string          `json:"session_id"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	ToolResponse   any             `json:"tool_response,omitempty"`
}

// hookDecision orders what hooks may say: the strongest wins.
type hookDecision int

const (
	hookNone hookDecision = iota
	hookAllow
	hookAsk
	hookDeny
)

func (d hookDecision) String() string {
	return [...]string{"none", "allow", "ask", "deny"}[d]
}

// hookVerdict is one hook's answer, or all matching hooks' answers
// combined.
type hookVerdict struct {
	decision hookDecision
	reason   string
	updated  json.RawMessage // PreToolUse: the input to run instead
	context  []string        // text appended to the tool_result
	failed   []string        // hooks that failed, for fail-closed
}

// hookRunner runs the configured and the workspace's hooks.
type hookRunner struct {
	cfg       HookConfig
	pre, post []compiledMatcher
	dir       string // the workspace, hooks' working directory
	env       func() []string
	// confine is the sandbox of a command hook and what it may see.
	confine func() (*sandbox.Sandbox, sandbox.Run, error)
	client  *http.Client
	runs    *prometheus.CounterVec
	logger  *slog.Logger
}

type compiledMatcher struct {
	re    *regexp.Regexp
	hooks []HookSpec
}

func newHookRunner(conf *Config, ws *Workspace, reg prometheus.Registerer, logger *slog.Logger) *hookRunner {
	h := &hookRunner{cfg: conf.Hooks, client: &http.Client{}, logger: logger, env: conf.Commands.ChildEnv,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_hook_runs_total",
			Help: "Hook runs, by event and outcome (allow, ask, deny, none, error, timeout).",
		}, []string{"event", "outcome"})}
	reg.MustRegister(h.runs)
	for _, ev := range []string{HookPreToolUse, HookPostToolUse} {
		for _, o := range []string{"allow", "ask", "deny", "none", "error", "timeout"} {
			h.runs.WithLabelValues(ev, o)
		}
	}
	if ws != nil {
		h.dir = ws.Dir
	}
	compile := func(ms []HookMatcher) []compiledMatcher {
		var out []compiledMatcher
		for _, m := range ms {
			out = append(out, compiledMatcher{re: matcherRE(m.Matcher), hooks: m.Hooks})
		}
		return out
	}
	h.pre, h.post = compile(h.cfg.PreToolUse), compile(h.cfg.PostToolUse)
	return h
}

// matching lists the hooks of an event that apply to a call known by the
// given names (the name the model used and the registered one).
func (h *hookRunner) matching(event string, names ...string) []HookSpec {
	ms := h.pre
	if event == HookPostToolUse {
		ms = h.post
	}
	var out []HookSpec
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
			out = append(out, HookSpec{Type: "command", Command: shellQuote(p)})
		}
	}
	return out
}

// idle reports whether no hook can run for the event, whatever the call:
// none is configured for it and the workspace's own hooks are not
// trusted. Calls then skip building the hooks' input.
func (h *hookRunner) idle(event string) bool {
	ms := h.pre
	if event == HookPostToolUse {
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

// run runs every matching hook at once and combines their verdicts: the
// strongest decision wins (deny over ask over allow), the first updated
// input in config order is kept and every context is appended.
func (h *hookRunner) run(ctx context.Context, in hookInput, names ...string) hookVerdict {
	specs := h.matching(in.HookEventName, names...)
	if len(specs) == 0 {
		return hookVerdict{}
	}
	body, err := json.Marshal(in)
	if err != nil {
		return hookVerdict{failed: []string{"encode hook input: " + err.Error()}}
	}
	verdicts := make([]hookVerdict, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() { verdicts[i] = h.runOne(ctx, in, spec, body) })
	}
	wg.Wait()
	var all hookVerdict
	for _, v := range verdicts {
		if v.decision > all.decision {
			all.decision, all.reason = v.decision, v.reason
		}
		if all.updated == nil && v.updated != nil {
			all.updated = v.updated
		}
		all.context = append(all.context, v.context...)
		all.failed = append(all.failed, v.failed...)
	}
	if all.decision == hookDeny {
		all.updated = nil
	}
	return all
}

// runOne runs one hook, counts and logs it.
func (h *hookRunner) runOne(ctx context.Context, in hookInput, spec HookSpec, body []byte) hookVerdict {
	start := time.Now()
	var v hookVerdict
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
	if len(v.failed) > 0 {
		level = slog.LevelWarn
	}
	h.logger.Log(ctx, level, "hook", "event", in.HookEventName, "tool", in.ToolName, "tool_use_id", in.ToolUseID,
		"session_id", in.SessionID, "hook", target, "outcome", outcome, "duration_ms", time.Since(start).Milliseconds(),
		"failure", strings.Join(v.failed, "; "))
	return v
}
