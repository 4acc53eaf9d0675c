package coordinator_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

func TestSessionsExpireIdle(t *testing.T) {
	newCoord := func(t *testing.T, idleSeconds, max int) *coordinator.Coordinator {
		t.Helper()
		cfg := coordinator.DefaultConfig()
		cfg.SessionIdleSeconds, cfg.MaxSessions = idleSeconds, max
		c := coordinator.New(coordinator.Options{Config: cfg, Tools: []tool.Registration{}})
		t.Cleanup(c.Close)
		return c
	}
	create := func(t *testing.T, c *coordinator.Coordinator) *coordinator.Session {
		t.Helper()
		s, err := c.Sessions().Create(api.ModeAct, api.Permissions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Run("an unused session expires, default stays", func(t *testing.T) {
		c := newCoord(t, 60, 8)
		s := create(t, c)
		if got := c.Sessions().ExpireIdle(time.Now().Add(59 * time.Second)); len(got) != 0 {
			t.Fatalf("expired %v before the idle time", got)
		}
		got := c.Sessions().ExpireIdle(time.Now().Add(61 * time.Second))
		if !slices.Equal(got, []string{s.ID}) {
			t.Fatalf("expired %v, want [%s]", got, s.ID)
		}
		if _, err := c.Sessions().Get(s.ID); err == nil {
			t.Error("the expired session is still found")
		}
		if _, err := c.Sessions().Get(api.DefaultSessionID); err != nil {
			t.Errorf("default: %v", err)
		}
		select {
		case <-s.Done():
		default:
			t.Error("the expired session's context was not cancelled")
		}
	})
	t.Run("a lookup counts as a use", func(t *testing.T) {
		c := newCoord(t, 60, 8)
		s := create(t, c)
		// A lookup made now restarts the idle time, so 61 s from a
		// moment 30 s ahead is not yet idle.
		if _, err := c.Sessions().Get(s.ID); err != nil {
			t.Fatal(err)
		}
		if got := c.Sessions().ExpireIdle(time.Now().Add(59 * time.Second)); len(got) != 0 {
			t.Errorf("expired %v right after a lookup", got)
		}
	})
	t.Run("an open stream holds the session", func(t *testing.T) {
		c := newCoord(t, 60, 8)
		s := create(t, c)
		release := s.Hold()
		if got := c.Sessions().ExpireIdle(time.Now().Add(time.Hour)); len(got) != 0 {
			t.Fatalf("expired %v while held", got)
		}
		release()
		if got := c.Sessions().ExpireIdle(time.Now().Add(time.Hour)); len(got) != 1 {
			t.Errorf("expired %v after release, want the session", got)
		}
	})
	t.Run("an unfinished call holds the session", func(t *testing.T) {
		g := newGate()
		c, s := newGateCoordinator(t, g)
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.RunMessage(context.Background(), s, "m1", []api.ToolUse{use1("gate", "toolu_1", `{}`)})
		}()
		receive(t, g.started)
		if got := c.Sessions().ExpireIdle(time.Now().Add(2 * time.Hour)); len(got) != 0 {
			t.Errorf("expired %v with a call running", got)
		}
		close(g.release)
		receive(t, done)
		if got := c.Sessions().ExpireIdle(time.Now().Add(2 * time.Hour)); len(got) != 1 {
			t.Errorf("expired %v after the call ended, want the session", got)
		}
	})
	t.Run("a full set makes room by expiring idle sessions", func(t *testing.T) {
		c := newCoord(t, 1, 2) // default plus one
		old := create(t, c)
		if _, err := c.Sessions().Create(api.ModeAct, api.Permissions{}); err == nil {
			t.Fatal("a third session was created while the second is fresh")
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := c.Sessions().Create(api.ModeAct, api.Permissions{}); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the idle session never made room")
			}
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := c.Sessions().Get(old.ID); err == nil {
			t.Error("the idle session is still there")
		}
	})
	t.Run("negative never expires", func(t *testing.T) {
		c := newCoord(t, -1, 8)
		create(t, c)
		if got := c.Sessions().ExpireIdle(time.Now().Add(1000 * time.Hour)); len(got) != 0 {
			t.Errorf("expired %v with expiry off", got)
		}
	})
}
