package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/atomicfile"
)

// sweepLimit bounds the entries the start-up sweep looks at, so a huge
// workspace costs a bounded walk.
const sweepLimit = 500_000

// sweepTemps removes, in the background, the temporary files that writes
// cut short by a crash or a kill left in the workspace. The returned
// function stops the sweep and waits for it, before the workspace closes.
func sweepTemps(ctx context.Context, ws *tool.Workspace, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		removed, err := atomicfile.SweepTemps(ctx, ws.Root, atomicfile.StaleAge, sweepLimit)
		if len(removed) > 0 || err != nil && ctx.Err() == nil {
			logger.Info("left-over temporary files removed", "count", len(removed), "took", time.Since(start), "err", err)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
