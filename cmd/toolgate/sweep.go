package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/atomicfile"
	"github.com/toolgate/toolgate/internal/outfiles"
	procs "github.com/toolgate/toolgate/internal/process"
	"github.com/toolgate/toolgate/internal/sandbox"
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

// openSpills gives the server its spill directory and the cap on all its
// spills (commands.max_spill_bytes): under commands.output_dir, by default
// a directory of the user's own in the system's temporary directory, which
// the sandbox then masks whole (other servers' spills included). Spill
// directories that servers killed outright left there are removed first;
// the returned function removes this server's own.
func openSpills(cmds *tool.CommandConfig, logger *slog.Logger) (closeSpills func(), err error) {
	if cmds.OutputDir == "" {
		cmds.OutputDir = filepath.Join(os.TempDir(), fmt.Sprintf("toolgate-outputs-%d", os.Getuid()))
	}
	area, swept, err := procs.OpenSpillArea(cmds.OutputDir, cmds.SpillCap())
	if len(swept) > 0 {
		logger.Info("left-over spilled outputs removed", "dirs", len(swept))
	}
	if err != nil {
		return nil, fmt.Errorf("commands.output_dir %s: %w", cmds.OutputDir, err)
	}
	cmds.Spills = area
	// The sessions' output files live in the spill area: outside the
	// workspace, masked from every command, gone with the server.
	cmds.Outputs = outfiles.New(filepath.Join(area.Dir(), "sessions"), outfiles.Limits{File: cmds.OutputCap(), Total: cmds.SpillCap()})
	return func() { _ = area.Close() }, nil
}

// sweepNetworkDirs removes the network proxies' socket directories (the
// session networks' and the network_allow relays') that toolgates killed
// outright left in the system's temporary directory (those of live
// toolgates, this user's or not, stay).
func sweepNetworkDirs(logger *slog.Logger) {
	if swept := sandbox.SweepNetworkDirs(); len(swept) > 0 {
		logger.Info("left-over network proxy directories removed", "dirs", len(swept))
	}
}
