package telemetry

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// propagator is W3C trace context: traceparent and tracestate.
var propagator = propagation.TraceContext{}

// FromHeaders returns ctx carrying the remote span a request's
// traceparent names, so spans started under it become its children.
// Without a valid traceparent ctx is returned unchanged.
func FromHeaders(ctx context.Context, h http.Header) context.Context {
	if h.Get("traceparent") == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

// InjectMeta writes the current span's traceparent (and tracestate) into
// an MCP request's _meta, as the MCP specification lets a client carry
// trace context to a server. meta may be nil; the result is the map to
// send, or nil when ctx has no span.
func InjectMeta(ctx context.Context, meta map[string]any) map[string]any {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return meta
	}
	carrier := propagation.MapCarrier{}
	propagator.Inject(ctx, carrier)
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range carrier {
		meta[k] = v
	}
	return meta
}
