package coordinator

import (
	"testing"
	"time"
)

func TestAgentWatchClosedWithCoordinator(t *testing.T) {
	c := New(Options{Config: Config{AgentConfig: AgentConfig{Subagents: SubagentConfig{Dir: t.TempDir()}}}})
	if c.agents == nil || c.agents.fsw == nil {
		t.Fatal("the agent directory is not watched")
	}
	c.Close()
	done := make(chan struct{})
	go func() {
		c.agents.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch goroutine still runs after Close")
	}
	t.Run("closing twice is harmless", func(t *testing.T) { c.Close() })
}
