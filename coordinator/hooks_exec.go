package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// hookOutput is what a hook may print on stdout (or answer over HTTP):
// Claude Code's fields, at the top level or under hookSpecificOutput,
// its older decision/reason pair, or Cline's cancel/contextModification.
type hookOutput struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	HookSpecificOutput       *hookOutput     `json:"hookSpecificOutput"`
	Decision                 string          `json:"decision"`
	Reason                   string          `json:"reason"`
	Cancel                   bool            `json:"cancel"`
	ContextModification      string          `json:"contextModification"`
	ErrorMessage             string          `json:"errorMessage"`
}

// verdict turns a hook's output into a verdict.
func (o *hookOutput) verdict() hookVerdict {
	var v hookVerdict
	if o.HookSpecificOutput != nil {
		v = o.HookSpecificOutput.verdict()
	}
	set := func(d hookDecision, reason string) {
		if d > v.decision {
			v.decision, v.reason = d, reason
		}
	}
	switch o.PermissionDecision {
	case "allow":
		set(hookAllow, o.PermissionDecisionReason)
	case "ask":
		set(hookAsk, o.PermissionDecisionReason)
	case "deny":
		set(hookDeny, o.PermissionDecisionReason)
	}
	switch o.Decision {
	case "approve":
		set(hookAllow, o.Reason)
	case "block":
		set(hookDeny, o.Reason)
	}
	if o.Cancel {
		set(hookDeny, o.ErrorMessage)
	}
	if len(o.UpdatedInput) > 0 && string(o.UpdatedInput) != "null" && v.updated == nil {
		v.updated = o.UpdatedInput
	}
	for _, c := range []string{o.AdditionalContext, o.ContextModification} {
		if c != "" {
			v.context = append(v.context, c)
		}
	}
	return v
}

// parseHookStdout reads a successful hook's stdout: JSON when it looks
// like an object, otherwise plain text that decides nothing.
func parseHookStdout(out []byte) (hookVerdict, error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return hookVerdict{}, nil
	}
	var o hookOutput
	if err := json.Unmarshal(trimmed, &o); err != nil {
		return hookVerdict{}, fmt.Errorf("invalid JSON output: %w", err)
	}
	return o.verdict(), nil
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool
}

func (b *cappedBuffer) add(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.max - len(b.buf)
	if len(s) > room {
		s, b.cut = s[:max(room, 0)], true
	}
	b.buf = append(b.buf, s...)
}

func (b *cappedBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf
}

// runCommand runs a command hook through bash with the input on stdin.
// Exit 0 passes its stdout on as output, exit 2 blocks with stderr as the
// reason, anything else is a failure.
func (h *hookRunner) runCommand(ctx context.Context, spec HookSpec, body []byte) (hookVerdict, string) {
	stdout := &cappedBuffer{max: h.cfg.MaxOutputBytes}
	stderr := &cappedBuffer{max: h.cfg.MaxOutputBytes}
	all := process.NewOutput(process.OutputLimits{Memory: h.cfg.MaxOutputBytes, Tail: 1, Full: int64(h.cfg.MaxOutputBytes)})
	defer func() { _ = all.Close(); _ = all.Remove() }()
	var sb *sandbox.Sandbox
	var confine sandbox.Run
	if h.confine != nil {
		var err error
		if sb, confine, err = h.confine(); err != nil {
			return failedHook("cannot start hook: " + err.Error()), "error"
		}
	}
	res, err := process.Run(ctx, process.Options{
		Sandbox: sb, Confine: confine,
		Command: spec.Command, Dir: h.dir, Env: h.env(), Stdin: bytes.NewReader(body),
		Timeout: spec.timeout(), Output: all, LiveRate: 1 << 30, LiveBurst: 1 << 30,
		OnChunk: func(stream, chunk string) {
			if stream == "stderr" {
				stderr.add(chunk)
			} else {
				stdout.add(chunk)
			}
		},
	})
	switch {
	case err != nil:
		return failedHook("cannot start hook: " + err.Error()), "error"
	case res.TimedOut:
		return failedHook(fmt.Sprintf("hook timed out after %s", spec.timeout())), "timeout"
	case res.Cancelled:
		return failedHook("hook cancelled with its call"), "error"
	case res.ExitCode == 2:
		reason := strings.TrimSpace(string(stderr.bytes()))
		if reason == "" {
			reason = "blocked by a hook"
		}
		return hookVerdict{decision: hookDeny, reason: reason}, hookDeny.String()
	case res.ExitCode != 0:
		return failedHook(fmt.Sprintf("hook exited with status %d: %s", res.ExitCode, strings.TrimSpace(string(stderr.bytes())))), "error"
	case stdout.cut:
		return failedHook(fmt.Sprintf("hook output exceeds %d bytes", h.cfg.MaxOutputBytes)), "error"
	}
	v, perr := parseHookStdout(stdout.bytes())
	if perr != nil {
		return failedHook(perr.Error()), "error"
	}
	return v, v.decision.String()
}

// runHTTP POSTs the input to the hook's URL; a 2xx answer's body is read
// like a command's stdout, anything else is a failure.
func (h *hookRunner) runHTTP(ctx context.Context, spec HookSpec, body []byte) (hookVerdict, string) {
	ctx, cancel := context.WithTimeout(ctx, spec.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, spec.URL, bytes.NewReader(body))
	if err != nil {
		return failedHook("invalid hook URL: " + err.Error()), "error"
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return failedHook(fmt.Sprintf("hook timed out after %s", spec.timeout())), "timeout"
		}
		return failedHook("hook request failed: " + err.Error()), "error"
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.cfg.MaxOutputBytes)+1))
	switch {
	case err != nil:
		return failedHook("reading hook response: " + err.Error()), "error"
	case len(out) > h.cfg.MaxOutputBytes:
		return failedHook(fmt.Sprintf("hook response exceeds %d bytes", h.cfg.MaxOutputBytes)), "error"
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return failedHook(fmt.Sprintf("hook answered %s", resp.Status)), "error"
	}
	v, perr := parseHookStdout(out)
	if perr != nil {
		return failedHook(perr.Error()), "error"
	}
	return v, v.decision.String()
}

func failedHook(msg string) hookVerdict {
	return hookVerdict{failed: []string{msg}}
}
