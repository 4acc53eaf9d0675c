package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/capbuf"
	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// output is what a hook may print on stdout (or answer over HTTP):
// Claude Code's fields, at the top level or under hookSpecificOutput,
// its older decision/reason pair, or Cline's cancel/contextModification.
type output struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	HookSpecificOutput       *output         `json:"hookSpecificOutput"`
	Decision                 string          `json:"decision"`
	Reason                   string          `json:"reason"`
	Cancel                   bool            `json:"cancel"`
	ContextModification      string          `json:"contextModification"`
	ErrorMessage             string          `json:"errorMessage"`
}

// verdict turns a hook's output into a verdict.
func (o *output) verdict() Verdict {
	var v Verdict
	if o.HookSpecificOutput != nil {
		v = o.HookSpecificOutput.verdict()
	}
	set := func(d Decision, reason string) {
		if d > v.Decision {
			v.Decision, v.Reason = d, reason
		}
	}
	switch o.PermissionDecision {
	case "allow":
		set(Allow, o.PermissionDecisionReason)
	case "ask":
		set(Ask, o.PermissionDecisionReason)
	case "deny":
		set(Deny, o.PermissionDecisionReason)
	}
	switch o.Decision {
	case "approve":
		set(Allow, o.Reason)
	case "block":
		set(Deny, o.Reason)
	}
	if o.Cancel {
		set(Deny, o.ErrorMessage)
	}
	if len(o.UpdatedInput) > 0 && string(o.UpdatedInput) != "null" && v.Updated == nil {
		v.Updated = o.UpdatedInput
	}
	for _, c := range []string{o.AdditionalContext, o.ContextModification} {
		if c != "" {
			v.Context = append(v.Context, c)
		}
	}
	return v
}

// parseStdout reads a successful hook's stdout: JSON when it looks
// like an object, otherwise plain text that decides nothing.
func parseStdout(out []byte) (Verdict, error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Verdict{}, nil
	}
	var o output
	if err := json.Unmarshal(trimmed, &o); err != nil {
		return Verdict{}, fmt.Errorf("invalid JSON output: %w", err)
	}
	return o.verdict(), nil
}

// runCommand runs a command hook through bash with the input on stdin.
// Exit 0 passes its stdout on as output, exit 2 blocks with stderr as the
// reason, anything else is a failure.
func (h *Runner) runCommand(ctx context.Context, spec Spec, body []byte) (Verdict, string) {
	stdout := &capbuf.Buffer{Max: h.cfg.MaxOutputBytes}
	stderr := &capbuf.Buffer{Max: h.cfg.MaxOutputBytes}
	all := process.NewOutput(process.OutputLimits{Memory: h.cfg.MaxOutputBytes, Tail: 1, Full: int64(h.cfg.MaxOutputBytes)})
	defer func() { _ = all.Close(); _ = all.Remove() }()
	var sb *sandbox.Sandbox
	var confine sandbox.Run
	if h.confine != nil {
		var err error
		if sb, confine, err = h.confine(); err != nil {
			return failedRun("cannot start hook: " + err.Error()), "error"
		}
	}
	res, err := process.Run(ctx, process.Options{
		Sandbox: sb, Confine: confine,
		Command: spec.Command, Dir: h.dir, Env: h.env(), Stdin: bytes.NewReader(body),
		Timeout: h.limit(spec), Output: all, LiveRate: 1 << 30, LiveBurst: 1 << 30,
		OnChunk: func(stream, chunk string) {
			if stream == "stderr" {
				stderr.Add(chunk)
			} else {
				stdout.Add(chunk)
			}
		},
	})
	switch {
	case err != nil:
		return failedRun("cannot start hook: " + err.Error()), "error"
	case res.TimedOut:
		return failedRun(fmt.Sprintf("hook timed out after %s", h.limit(spec))), "timeout"
	case res.Cancelled:
		return failedRun("hook cancelled with its call"), "error"
	case res.ExitCode == 2:
		reason := strings.TrimSpace(string(stderr.Bytes()))
		if reason == "" {
			reason = "blocked by a hook"
		}
		return Verdict{Decision: Deny, Reason: reason}, Deny.String()
	case res.ExitCode != 0:
		return failedRun(fmt.Sprintf("hook exited with status %d: %s", res.ExitCode, strings.TrimSpace(string(stderr.Bytes())))), "error"
	case stdout.Cut():
		return failedRun(fmt.Sprintf("hook output exceeds %d bytes", h.cfg.MaxOutputBytes)), "error"
	}
	v, perr := parseStdout(stdout.Bytes())
	if perr != nil {
		return failedRun(perr.Error()), "error"
	}
	return v, v.Decision.String()
}

// runHTTP POSTs the input to the hook's URL; a 2xx answer's body is read
// like a command's stdout, anything else is a failure.
func (h *Runner) runHTTP(ctx context.Context, spec Spec, body []byte) (Verdict, string) {
	ctx, cancel := context.WithTimeout(ctx, h.limit(spec))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, spec.URL, bytes.NewReader(body))
	if err != nil {
		return failedRun("invalid hook URL: " + err.Error()), "error"
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return failedRun(fmt.Sprintf("hook timed out after %s", h.limit(spec))), "timeout"
		}
		return failedRun("hook request failed: " + err.Error()), "error"
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.cfg.MaxOutputBytes)+1))
	switch {
	case err != nil:
		return failedRun("reading hook response: " + err.Error()), "error"
	case len(out) > h.cfg.MaxOutputBytes:
		return failedRun(fmt.Sprintf("hook response exceeds %d bytes", h.cfg.MaxOutputBytes)), "error"
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return failedRun(fmt.Sprintf("hook answered %s", resp.Status)), "error"
	}
	v, perr := parseStdout(out)
	if perr != nil {
		return failedRun(perr.Error()), "error"
	}
	return v, v.Decision.String()
}

func failedRun(msg string) Verdict {
	return Verdict{Failed: []string{msg}}
}

// limit is the spec's time limit: its Timeout, or the runner's default,
// applied per hook since hooks are a list.
func (h *Runner) limit(spec Spec) time.Duration {
	if spec.Timeout <= 0 {
		return h.timeout
	}
	return time.Duration(spec.Timeout) * time.Second
}
