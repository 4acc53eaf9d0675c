package coordinator

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/logattrs"
)

// wrappingHandler stands for a handler that passes lines on to another
// (cmd/toolgate wraps the JSON handler twice: the request line, the
// flush of warnings).
type wrappingHandler struct{ slog.Handler }

// BenchmarkDebugCheck compares the per-call line's check as record makes
// it, the coordinator's debugLog read, with asking the call's logger
// (its attributes over the server's handlers, at info level) as it did
// before, each check timed alone with the caches cold (benchpair.Cold).
//
//	go test -run '^$' -bench DebugCheck -benchtime 2000x -count 3 ./coordinator/
func BenchmarkDebugCheck(b *testing.B) {
	base := slog.New(wrappingHandler{wrappingHandler{slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})}})
	c := &Coordinator{logger: base, debugLog: base.Enabled(context.Background(), slog.LevelDebug)}
	callLogger := logattrs.With(base, slog.String("session_id", "default"), slog.String("tool_use_id", "toolu_1"), slog.String("tool", "read_file"))
	written := 0
	for _, mib := range []int{4, 64} {
		b.Run(fmt.Sprintf("evict=%dMiB", mib), func(b *testing.B) {
			benchpair.Cold(b, mib<<20, func() {
				if c.debugLog {
					written++
				}
			}, func() {
				if callLogger.Enabled(context.Background(), slog.LevelDebug) {
					written++
				}
			})
		})
	}
	if written != 0 {
		b.Fatalf("%d debug checks passed at info level", written)
	}
}
