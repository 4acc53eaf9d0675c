package conformance

import (
	"context"
	"path/filepath"

	"github.com/toolgate/toolgate/internal/launch"
	"github.com/toolgate/toolgate/internal/randid"
)

// Process is a toolgate started by StartToolgateIn: a Toolgate whose
// process the caller ends with Stop.
type Process struct {
	*Toolgate
	srv *launch.Server
}

// StartToolgateIn is StartToolgate for a harness that starts toolgate
// outside a test's own goroutine (parts run in parallel, each with its own
// server): bin is the toolgate binary (testbuild.Binary), state a
// directory for its HOME and XDG_STATE_HOME (the store), env further
// variables (KEY=value). It waits until toolgate says where it listens or
// ctx ends; the process is killed when ctx ends, and Stop ends it sooner.
func StartToolgateIn(ctx context.Context, bin, workspace, state string, env ...string) (*Process, error) {
	srv, err := launch.Start(ctx, bin, launch.Options{
		Args:  launch.ServeArgs(workspace, "--log-format", "json"),
		Token: randid.Hex(16),
		Env:   append([]string{"HOME=" + state, "XDG_STATE_HOME=" + filepath.Join(state, "state")}, env...),
	})
	if err != nil {
		return nil, err
	}
	return &Process{Toolgate: &Toolgate{URL: srv.URL, Token: srv.Token}, srv: srv}, nil
}

// Stop ends the process (SIGTERM, then SIGKILL after 10 seconds) and
// waits for it.
func (p *Process) Stop() { _ = p.srv.Stop() }
