package logattrs

import (
	"context"
	"log/slog"
	"slices"
)

// With returns a logger writing what l writes, each line carrying attrs
// before its own attributes, as l.With(attrs...) would; the attributes are
// formatted only for lines the level lets through.
//
// The logger, its handler and up to inlineAttrs attributes are one
// allocation (a call's logger has three or four), where they were three
// (BenchmarkWith).
func With(l *slog.Logger, attrs ...slog.Attr) *slog.Logger {
	inner, before := l.Handler(), []slog.Attr(nil)
	if h, ok := inner.(*handler); ok {
		inner, before = h.inner, h.attrs
	}
	x := new(logger)
	all := x.buf[:0]
	if n := len(before) + len(attrs); n > inlineAttrs {
		all = make([]slog.Attr, 0, n)
	}
	x.h = handler{inner: inner, attrs: append(append(all, before...), attrs...)}
	x.l = *slog.New(&x.h)
	return &x.l
}

// inlineAttrs is how many attributes a logger holds without a slice of
// its own.
const inlineAttrs = 4

// logger is what With makes, in one allocation.
type logger struct {
	l   slog.Logger
	h   handler
	buf [inlineAttrs]slog.Attr
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
