package coordinator

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolgate/toolgate/api"
)

// BenchmarkCallTracing times everything tracing adds to one call (the
// request's parent, the call span, four stage spans, the end, the
// exemplar), off and on, beside "none": the call's metric alone, as it
// was before tracing. Off minus none is what every call pays without an
// OTLP endpoint; set it beside BenchmarkSchedulerOverhead's µs/call:
//
//	go test -run '^$' -bench 'CallTracing|SchedulerOverhead/execute_serial' ./coordinator/
func BenchmarkCallTracing(b *testing.B) {
	hist := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "h", Buckets: prometheus.DefBuckets})
	b.Run("none", func(b *testing.B) {
		// The same call without any tracing code: the metric alone.
		for b.Loop() {
			hist.Observe(time.Millisecond.Seconds())
		}
	})
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			var ct *callTracer
			if mode == "on" {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
				ct = newCallTracer(tp)
			}
			s := &Session{ID: "bench"}
			ctx := context.Background()
			for b.Loop() {
				cs := &callState{use: api.ToolUse{ID: "toolu_1", Name: "read_file"}, s: s, ran: true}
				cs.parent = ct.parentOf(ctx)
				cctx := ct.startCall(ctx, cs)
				for _, stage := range []string{"policy", "approval wait", "hooks PreToolUse", "execute"} {
					_, span := ct.stage(cctx, cs, stage)
					span.End()
				}
				observeWithTrace(hist, time.Millisecond.Seconds(), cs.span)
				ct.endCall(cs, outcome{status: api.StatusSucceeded})
			}
		})
	}
}
