package subagents

import (
	"testing"
	"time"
)

func TestAgentWatchClosed(t *testing.T) {
	src := New(nil, Config{Dir: t.TempDir()})
	if src == nil || src.fsw == nil {
		t.Fatal("the agent directory is not watched")
	}
	src.Close()
	done := make(chan struct{})
	go func() {
		src.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch goroutine still runs after Close")
	}
	t.Run("closing twice is harmless", func(t *testing.T) { src.Close() })
}
