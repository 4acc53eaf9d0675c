package conformance

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/internal/randid"
)

// Process is a toolgate started by StartToolgateIn: a Toolgate whose
// process the caller ends with Stop.
type Process struct {
	*Toolgate
	cmd *exec.Cmd
}

// StartToolgateIn is StartToolgate for a harness that starts toolgate
// outside a test's own goroutine (parts run in parallel, each with its own
// server): bin is the toolgate binary (testbuild.Binary), state a
// directory for its HOME and XDG_STATE_HOME (the store), env further
// variables (KEY=value). It waits until toolgate says where it listens or
// ctx ends; the process is killed when ctx ends, and Stop ends it sooner.
func StartToolgateIn(ctx context.Context, bin, workspace, state string, env ...string) (*Process, error) {
	tg := &Toolgate{token: randid.Hex(16), log: &lockedBuffer{}}
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--workspace", workspace, "--log-format", "json")
	cmd.Env = append(append(os.Environ(), "TOOLGATE_TOKEN="+tg.token, "HOME="+state, "XDG_STATE_HOME="+filepath.Join(state, "state")), env...)
	cmd.Stderr = tg.log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Toolgate: tg, cmd: cmd}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "toolgate listening on "); ok {
				url <- strings.TrimSpace(u)
			}
		}
		close(url)
	}()
	select {
	case u, ok := <-url:
		if !ok {
			p.Stop()
			return nil, fmt.Errorf("toolgate exited before listening: %s", tg.log.String())
		}
		tg.URL = u
		return p, nil
	case <-ctx.Done():
		p.Stop()
		return nil, ctx.Err()
	}
}

// Stop ends the process (SIGTERM, then SIGKILL after 10 seconds) and
// waits for it.
func (p *Process) Stop() { stop(p.cmd) }
