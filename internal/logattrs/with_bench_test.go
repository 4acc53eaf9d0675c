package logattrs

import (
	"bytes"
	"log/slog"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
)

// withSeparate is With as it was: the attributes' slice, the handler and
// the logger allocated one by one. BenchmarkWith's baseline.
func withSeparate(l *slog.Logger, attrs ...slog.Attr) *slog.Logger {
	if h, ok := l.Handler().(*handler); ok {
		return slog.New(&handler{inner: h.inner, attrs: append(slices.Clip(h.attrs), attrs...)})
	}
	return slog.New(&handler{inner: l.Handler(), attrs: attrs})
}

var sink *slog.Logger

// BenchmarkWith measures a call's logger (three attributes and the
// request id, as the coordinator makes one per call) made in one
// allocation against the three of withSeparate.
func BenchmarkWith(b *testing.B) {
	base := slog.New(slog.NewJSONHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	sid, id, name, req := "s1", "toolu_1", "read_file", "r1"
	b.Run("allocs", func(b *testing.B) {
		one := testing.AllocsPerRun(1000, func() {
			sink = With(base, slog.String("session_id", sid), slog.String("tool_use_id", id), slog.String("tool", name), slog.String("request_id", req))
		})
		sep := testing.AllocsPerRun(1000, func() {
			attrs := []slog.Attr{slog.String("session_id", sid), slog.String("tool_use_id", id), slog.String("tool", name), slog.String("request_id", req)}
			sink = withSeparate(base, attrs...)
		})
		b.ReportMetric(one, "fast_allocs/op")
		b.ReportMetric(sep, "plain_allocs/op")
	})
	b.Run("time", func(b *testing.B) {
		benchpair.Run(b, func() {
			sink = With(base, slog.String("session_id", sid), slog.String("tool_use_id", id), slog.String("tool", name), slog.String("request_id", req))
		}, func() {
			attrs := []slog.Attr{slog.String("session_id", sid), slog.String("tool_use_id", id), slog.String("tool", name), slog.String("request_id", req)}
			sink = withSeparate(base, attrs...)
		})
	})
}
