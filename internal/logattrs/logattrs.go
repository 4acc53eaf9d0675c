package logattrs

import (
	"context"
	"log/slog"
	"slices"
)

// With returns a logger writing what l writes, each line carrying attrs
// before its own attributes, as l.With(attrs...) would; the attributes are
// formatted only for lines the level lets through.
func With(l *slog.Logger, attrs ...slog.Attr) *slog.Logger {
	if h, ok := l.Handler().(*handler); ok {
		return slog.New(&handler{inner: h.inner, attrs: append(slices.Clip(h.attrs), attrs...)})
	}
	return slog.New(&handler{inner: l.Handler(), attrs: attrs})
}

// handler adds attrs to each record it passes on.
type handler struct {
	inner slog.Handler
	attrs []slog.Attr
}

func (h *handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	out.AddAttrs(h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(a)
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &handler{inner: h.inner, attrs: append(slices.Clip(h.attrs), attrs...)}
}

// WithGroup puts the attributes so far outside the group, as slog does.
func (h *handler) WithGroup(name string) slog.Handler {
	return h.inner.WithAttrs(h.attrs).WithGroup(name)
}
