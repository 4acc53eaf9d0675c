package mcphub

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/internal/telemetry"
)

// traceCall opens the client span of a tools/call under the calling
// tool's span, when the call is traced, and hands the server the trace
// context in the request's _meta (traceparent), as the MCP specification
// allows. An untraced call gets a no-op span and an unchanged request.
func (s *server) traceCall(ctx context.Context, tool string, params *mcp.CallToolParams) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.SpanContext().IsValid() {
		return ctx, parent
	}
	ctx, span := parent.TracerProvider().Tracer("github.com/toolgate/toolgate/internal/mcphub").Start(ctx,
		"tools/call "+tool, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String("mcp.method.name", "tools/call"),
			attribute.String("gen_ai.tool.name", tool),
			attribute.String("toolgate.mcp.server", s.name),
		))
	params.Meta = telemetry.InjectMeta(ctx, params.Meta)
	return ctx, span
}
