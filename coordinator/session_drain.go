package coordinator

import (
	"context"
	"time"

	"github.com/toolgate/toolgate/api"
)

// RunningCalls counts the calls of every session that are running now.
func (c *Coordinator) RunningCalls() int {
	n := 0
	for _, s := range c.sessions.List() {
		s.mu.Lock()
		for _, e := range s.calls {
			if e.record.State == api.StateRunning {
				n++
			}
		}
		s.mu.Unlock()
	}
	return n
}

// Drain waits until no call is running or ctx ends, whichever is first,
// and reports how many were still running. A stopping server calls it
// after it stopped taking requests, so running edits and commands finish
// instead of being cut short; calls waiting for a decision are not waited
// for (nobody may be there to decide) and end when the coordinator closes.
func (c *Coordinator) Drain(ctx context.Context) int {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		n := c.RunningCalls()
		if n == 0 {
			return 0
		}
		select {
		case <-ctx.Done():
			return n
		case <-tick.C:
		}
	}
}
