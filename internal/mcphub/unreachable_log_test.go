package mcphub

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// levelCounter counts log records by level.
type levelCounter struct {
	mu     sync.Mutex
	counts map[slog.Level]int
}

func (c *levelCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *levelCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "mcp server disconnected" || r.Message == "mcp server still unreachable" {
		c.mu.Lock()
		c.counts[r.Level]++
		c.mu.Unlock()
	}
	return nil
}
func (c *levelCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *levelCounter) WithGroup(string) slog.Handler      { return c }

func (c *levelCounter) count(l slog.Level) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[l]
}

// TestUnreachableServerWarnsOnce: a server that keeps failing the same way
// is a warning once, then debug lines only, however often it is retried.
func TestUnreachableServerWarnsOnce(t *testing.T) {
	logs := &levelCounter{counts: map[slog.Level]int{}}
	h := New(Settings{MCPServers: map[string]ServerConfig{
		"gh": {Command: testServer(t), Args: []string{"-fail-start", "fatal: GITHUB_TOKEN is not set"}},
	}}, Options{MinBackoff: 5 * time.Millisecond, MaxBackoff: 10 * time.Millisecond, Logger: slog.New(logs)})
	h.Start(context.Background())
	t.Cleanup(h.Close)
	waitFor(t, "three more retries", func() bool { return logs.count(slog.LevelDebug) >= 3 })
	if n := logs.count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings for one unreachable server, want 1", n)
	}
}
