package coordinator

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/api"
)

// callTracer makes each call's spans, following OpenTelemetry's GenAI
// conventions for tool execution: an "execute_tool {name}" span per call
// with a child span per stage that did work (policy, approval wait, hooks,
// execute; MCP upstream calls below execute). It is nil when tracing is
// off, and every method then returns at once: calls pay nothing.
type callTracer struct{ t trace.Tracer }

func newCallTracer(tp trace.TracerProvider) *callTracer {
	if tp == nil {
		return nil
	}
	return &callTracer{t: tp.Tracer("github.com/toolgate/toolgate/coordinator")}
}

// noSpan is what stage returns when tracing is off.
var noSpan = trace.SpanFromContext(context.Background())

// parentOf is the span context of the request that brought a call in (its
// traceparent), kept with the call: the call runs under the session, not
// under the request.
func (ct *callTracer) parentOf(ctx context.Context) trace.SpanContext {
	if ct == nil {
		return trace.SpanContext{}
	}
	return trace.SpanContextFromContext(ctx)
}

// startCall opens the call's span under the request's and returns ctx
// carrying it, for the stages' spans.
func (ct *callTracer) startCall(ctx context.Context, cs *callState) context.Context {
	if ct == nil {
		return ctx
	}
	if cs.parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, cs.parent)
	}
	ctx, cs.span = ct.t.Start(ctx, "execute_tool "+cs.use.Name, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", cs.use.Name),
		attribute.String("gen_ai.tool.call.id", cs.use.ID),
		attribute.String("gen_ai.tool.type", "function"),
		attribute.String("toolgate.session.id", cs.s.ID),
	))
	return ctx
}

// stage opens a stage's span under the call's.
func (ct *callTracer) stage(ctx context.Context, cs *callState, name string) (context.Context, trace.Span) {
	if ct == nil || cs.span == nil {
		return ctx, noSpan
	}
	return ct.t.Start(trace.ContextWithSpan(ctx, cs.span), name)
}

// endCall closes the call's span with how it ended and who decided.
func (ct *callTracer) endCall(cs *callState, out outcome) {
	if ct == nil || cs.span == nil {
		return
	}
	attrs := []attribute.KeyValue{attribute.String("toolgate.call.status", string(out.status))}
	if out.code != "" {
		attrs = append(attrs, attribute.String("error.type", out.code), attribute.String("toolgate.error.code", out.code))
		cs.span.SetStatus(codes.Error, out.code)
	}
	if decision, by := cs.decision(out); decision != "" {
		attrs = append(attrs, attribute.String("toolgate.decision", decision), attribute.String("toolgate.decided_by", by))
	}
	cs.span.SetAttributes(attrs...)
	cs.span.End()
}

// decision says whether the call was let run or refused, and by whom: the
// user (an approval or rejection), a hook, or the rule or default that
// decided without asking.
func (cs *callState) decision(out outcome) (decision, by string) {
	switch {
	case cs.approved:
		return "approve", "user"
	case out.code == api.ToolCodeRejected || out.code == api.ToolCodeNoDecision:
		return "reject", "user"
	case out.code == api.ToolCodeHookBlocked:
		return "deny", "hook"
	case out.status == api.StatusDenied:
		return "deny", "policy"
	case cs.ran && cs.e != nil && cs.e.audit.decidedBy == decidedByHook:
		// A PreToolUse hook's allow skipped the prompt the policy asked for.
		return "allow", "hook"
	case cs.ran:
		return "allow", "policy"
	}
	return "", ""
}
