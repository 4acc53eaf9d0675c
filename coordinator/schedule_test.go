package coordinator_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

func TestScheduleSafeCallsRunTogether(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	tags := ids(3, "safe")
	var uses []api.ToolUse
	for _, tag := range tags {
		uses = append(uses, use("probe", tag, probeIn{Safe: true, Hold: true}))
	}
	done := runAsync(c, s, "m1", uses...)
	// All three start while none has been released: they overlap.
	r.waitStarted(t, tags...)
	t.Run("state", func(t *testing.T) {
		if got := len(s.Calls(api.StateRunning)); got != 3 {
			t.Errorf("%d calls running, want 3", got)
		}
	})
	for _, tag := range []string{"safe2", "safe0", "safe1"} {
		r.release(tag)
	}
	resp := receive(t, done)
	checkAnswer(t, resp, map[string]api.CallStatus{"safe0": api.StatusSucceeded, "safe1": api.StatusSucceeded, "safe2": api.StatusSucceeded}, tags...)
	checkEvents(t, s, tags...)
}

func TestScheduleUnsafeCallRunsAlone(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	done := runAsync(c, s, "m1",
		use("probe", "a", probeIn{Safe: true, Hold: true}),
		use("probe", "b", probeIn{Safe: true, Hold: true}),
		use("probe", "w", probeIn{Hold: true}),
		use("probe", "c", probeIn{Safe: true}),
		use("probe", "w2", probeIn{}),
	)
	r.waitStarted(t, "a", "b")
	waitKnown(t, s, 5)
	t.Run("waiting calls are queued", func(t *testing.T) {
		queued := s.Calls(api.StateQueued)
		var got []string
		for _, rec := range queued {
			got = append(got, rec.ToolUseID)
		}
		if strings.Join(got, ",") != "w,c,w2" {
			t.Errorf("queued %v, want [w c w2]", got)
		}
	})
	r.release("a")
	r.release("b")
	r.waitStarted(t, "w")
	r.release("w")
	resp := receive(t, done)
	checkAnswer(t, resp, nil, "a", "b", "w", "c", "w2")
	log := r.snapshot()
	checkAlone(t, log, "w")
	checkAlone(t, log, "w2")
	checkEvents(t, s, "a", "b", "w", "c", "w2")
}

func TestScheduleMaxConcurrency(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{MaxConcurrency: 2})
	tags := ids(5, "s")
	var uses []api.ToolUse
	for _, tag := range tags {
		uses = append(uses, use("probe", tag, probeIn{Safe: true, Hold: true}))
	}
	done := runAsync(c, s, "m1", uses...)
	// Two start at once; each release lets the next one in, in block order.
	r.waitStarted(t, tags[0])
	for i, tag := range tags {
		if i+1 < len(tags) {
			r.waitStarted(t, tags[i+1])
		}
		r.release(tag)
	}
	receive(t, done)
	if got := r.maxRunning(); got != 2 {
		t.Errorf("at most %d calls ran at once, want 2", got)
	}
}

func TestScheduleResultsInBlockOrder(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	done := runAsync(c, s, "m1",
		use("probe", "slow", probeIn{Safe: true, Hold: true}),
		use("probe", "fast", probeIn{Safe: true}),
		use("nope", "unknown", probeIn{}),
		use("probe", "bad", probeIn{}),
	)
	r.waitStarted(t, "fast")
	r.release("slow")
	resp := receive(t, done)
	checkAnswer(t, resp, map[string]api.CallStatus{
		"slow": api.StatusSucceeded, "fast": api.StatusSucceeded, "unknown": api.StatusUnknownTool, "bad": api.StatusSucceeded,
	}, "slow", "fast", "unknown", "bad")
}

func TestScheduleInvalidInputDoesNotRun(t *testing.T) {
	c, s, _ := newProbeCoordinator(t, coordinator.Config{})
	bad := api.ToolUse{Type: api.TypeToolUse, ID: "x", Name: "probe", Input: []byte(`{"tag":""}`)}
	resp := receive(t, runAsync(c, s, "m1", bad))
	checkAnswer(t, resp, map[string]api.CallStatus{"x": api.StatusInvalid}, "x")
	checkEvents(t, s, "x")
}

func TestScheduleSiblingCascade(t *testing.T) {
	t.Run("a failed command cancels its siblings", func(t *testing.T) {
		c, s, r := newProbeCoordinator(t, coordinator.Config{})
		done := runAsync(c, s, "m1",
			use("execute_command", "x", probeIn{Safe: true, Hold: true}),
			use("probe", "y", probeIn{Safe: true, Hold: true}),
			use("execute_command", "bad", probeIn{Safe: true, Hold: true, Fail: true}),
			use("probe_block", "later", probeIn{}),
		)
		r.waitStarted(t, "x", "y", "bad")
		r.release("bad")
		resp := receive(t, done)
		checkAnswer(t, resp, map[string]api.CallStatus{
			"x": api.StatusCancelled, "y": api.StatusCancelled, "bad": api.StatusFailed, "later": api.StatusCancelled,
		}, "x", "y", "bad", "later")
		for _, i := range []int{0, 1, 3} {
			if got := text(resp.Message.Content[i]); !strings.Contains(got, "Cancelled: parallel tool call bad errored") {
				t.Errorf("%s says %q, want the sibling message", resp.Calls[i].ToolUseID, got)
			}
		}
		if r.hasStarted("later") {
			t.Error("a call after the failure started")
		}
		checkEvents(t, s, "x", "y", "bad", "later")
	})
	t.Run("other tools do not cascade", func(t *testing.T) {
		c, s, r := newProbeCoordinator(t, coordinator.Config{})
		done := runAsync(c, s, "m1",
			use("probe", "x", probeIn{Safe: true, Hold: true}),
			use("probe", "bad", probeIn{Safe: true, Fail: true}),
		)
		r.waitStarted(t, "x", "bad")
		// bad has failed by the time its result is final; x must survive it.
		waitFinished(t, s, "bad")
		r.release("x")
		resp := receive(t, done)
		checkAnswer(t, resp, map[string]api.CallStatus{"x": api.StatusSucceeded, "bad": api.StatusFailed}, "x", "bad")
	})
	t.Run("configured list", func(t *testing.T) {
		c, s, r := newProbeCoordinator(t, coordinator.Config{CascadeTools: []string{"probe"}})
		done := runAsync(c, s, "m1",
			use("execute_command", "x", probeIn{Safe: true, Hold: true}),
			use("probe", "bad", probeIn{Safe: true, Hold: true, Fail: true}),
		)
		r.waitStarted(t, "x", "bad")
		r.release("bad")
		resp := receive(t, done)
		checkAnswer(t, resp, map[string]api.CallStatus{"x": api.StatusCancelled, "bad": api.StatusFailed}, "x", "bad")
	})
}

// waitKnown waits until the session knows n calls.
func waitKnown(t *testing.T, s *coordinator.Session, n int) {
	t.Helper()
	for range 10000 {
		if len(s.Calls("")) >= n {
			return
		}
		yieldBriefly()
	}
	t.Fatalf("the session never knew %d calls", n)
}

// waitFinished waits until a call's record is done.
func waitFinished(t *testing.T, s *coordinator.Session, id string) {
	t.Helper()
	for range 10000 {
		if rec, _, ok := s.Call(id); ok && rec.State == api.StateDone {
			return
		}
		yieldBriefly()
	}
	t.Fatalf("call %s did not finish", id)
}

func TestInterruptByKind(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	done := runAsync(c, s, "m1",
		use("probe", "cancelme", probeIn{Safe: true, Hold: true}),
		use("probe_block", "write", probeIn{Safe: true, Hold: true}),
		use("probe", "queued", probeIn{}),
	)
	r.waitStarted(t, "cancelme", "write")
	waitKnown(t, s, 3)
	cancelled, finishing := s.Interrupt(errInterrupted)
	if cancelled != 2 || finishing != 1 {
		t.Errorf("interrupt cancelled %d and left %d finishing, want 2 and 1", cancelled, finishing)
	}
	waitFinished(t, s, "cancelme")
	waitFinished(t, s, "queued")
	if rec, _, _ := s.Call("write"); rec.State != api.StateRunning {
		t.Errorf("block-kind call is %s after the interrupt, want running", rec.State)
	}
	r.release("write")
	resp := receive(t, done)
	checkAnswer(t, resp, map[string]api.CallStatus{
		"cancelme": api.StatusCancelled, "write": api.StatusSucceeded, "queued": api.StatusCancelled,
	}, "cancelme", "write", "queued")
	if r.hasStarted("queued") {
		t.Error("a call not yet started ran after the interrupt")
	}
	if got := text(resp.Message.Content[2]); !strings.Contains(got, "interrupted") {
		t.Errorf("queued call says %q, want the interrupt's cause", got)
	}
	checkEvents(t, s, "cancelme", "write", "queued")
}

func TestCancelQueuedCall(t *testing.T) {
	c, s, r := newProbeCoordinator(t, coordinator.Config{})
	done := runAsync(c, s, "m1",
		use("probe", "w1", probeIn{Hold: true}),
		use("probe", "w2", probeIn{}),
		use("probe", "w3", probeIn{}),
	)
	r.waitStarted(t, "w1")
	waitKnown(t, s, 3)
	if !s.Cancel("w2", errInterrupted) {
		t.Fatal("cancel of a queued call refused")
	}
	// The cancelled call ends at once, before the call ahead of it.
	waitFinished(t, s, "w2")
	r.release("w1")
	resp := receive(t, done)
	checkAnswer(t, resp, map[string]api.CallStatus{"w1": api.StatusSucceeded, "w2": api.StatusCancelled, "w3": api.StatusSucceeded}, "w1", "w2", "w3")
}

// TestScheduleMaxConcurrencyStreaming posts concurrency-safe blocks one by
// one, as a model streams them, under max_concurrency 2 read from a
// config file's JSON: no more than two run at once, and every one runs.
func TestScheduleMaxConcurrencyStreaming(t *testing.T) {
	var cfg coordinator.Config
	if err := json.Unmarshal([]byte(`{"max_concurrency": 2}`), &cfg); err != nil {
		t.Fatal(err)
	}
	c, s, r := newProbeCoordinator(t, cfg)
	tags := ids(4, "st")
	for _, tag := range tags {
		if err := c.AddBlock(s, "m1", use("probe", tag, probeIn{Safe: true, Hold: true})); err != nil {
			t.Fatal(err)
		}
	}
	r.waitStarted(t, tags[0], tags[1])
	if r.hasStarted(tags[2]) {
		t.Fatalf("a third call started while two ran (max_concurrency 2)")
	}
	m, err := c.CompleteMessage(s, "m1")
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan api.MessageResponse, 1)
	go func() { answered <- m.Wait(t.Context()) }()
	for i, tag := range tags {
		if i+2 < len(tags) {
			r.release(tag)
			r.waitStarted(t, tags[i+2])
		} else {
			r.release(tag)
		}
	}
	checkAnswer(t, receive(t, answered), nil, tags...)
	if got := r.maxRunning(); got != 2 {
		t.Errorf("at most %d calls ran at once, want 2", got)
	}
}
