package logattrs

import (
	"bytes"
	"log/slog"
	"testing"
)

// The lines are the ones Logger.With writes, byte for byte, whatever is
// added after: more attributes, a group, a second With.
func TestSameLinesAsWith(t *testing.T) {
	write := func(with func(*slog.Logger, ...slog.Attr) *slog.Logger) string {
		var buf bytes.Buffer
		base := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
		l := with(base, slog.String("session_id", "s1"), slog.Int("n", 2))
		l.Info("one", "status", "ok")
		l.With("k", "v").Warn("two")
		with(l, slog.String("request_id", "r1")).Info("three", "x", 1)
		l.WithGroup("g").Info("four", "y", 2)
		l.Debug("not written")
		return buf.String()
	}
	want := write(func(l *slog.Logger, attrs ...slog.Attr) *slog.Logger {
		args := make([]any, len(attrs))
		for i, a := range attrs {
			args[i] = a
		}
		return l.With(args...)
	})
	if got := write(With); got != want {
		t.Errorf("lines:\n%s\nwant, as Logger.With writes them:\n%s", got, want)
	}
}

// Nothing is formatted for a line the level drops: making the logger and
// not writing allocates only the logger.
func TestNoFormattingWhenDropped(t *testing.T) {
	base := slog.New(slog.NewJSONHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	lazy := testing.AllocsPerRun(100, func() {
		With(base, slog.String("session_id", "s1"), slog.String("tool_use_id", "toolu_1")).Info("tool call")
	})
	eager := testing.AllocsPerRun(100, func() {
		base.With("session_id", "s1", "tool_use_id", "toolu_1").Info("tool call")
	})
	if lazy >= eager {
		t.Errorf("%v allocations per dropped line, Logger.With makes %v", lazy, eager)
	}
}
