package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/store"
)

// heldStartStore is a memory store whose fsync'd start records (a
// running call, store.Synced) wait until the test releases them, and
// then fail when fail is set.
type heldStartStore struct {
	*store.Memory
	entered chan struct{}
	release chan struct{}
	fail    bool
}

func (s *heldStartStore) Apply(d store.Durability, ops ...store.Op) error {
	for _, o := range ops {
		if p, ok := o.(store.PutCall); ok && d == store.Synced && p.Call.State == string(api.StateRunning) {
			s.entered <- struct{}{}
			<-s.release
			if s.fail {
				return errors.New("disk full")
			}
		}
	}
	return s.Memory.Apply(d, ops...)
}

// startHeld runs `touch marker` through execute_command with the start
// record held by st, and returns the workspace's marker path and the
// call's answer.
func startHeld(t *testing.T, st *heldStartStore) (string, <-chan api.CallRecord) {
	t.Helper()
	e := newStoredCommandEnv(t, tool.CommandConfig{}, st)
	use := api.ToolUse{Type: api.TypeToolUse, ID: "toolu_held", Name: "execute_command",
		Input: json.RawMessage(`{"command":"touch marker","requires_approval":false}`)}
	done := make(chan api.CallRecord, 1)
	go func() { _, rec := e.coord.Execute(context.Background(), e.sess, "", use); done <- rec }()
	return filepath.Join(e.dir, "marker"), done
}

// TestCommandWaitsForDurableStart: execute_command prepares while its
// start record is written, but the command starts only once the record
// is on disk. The store holds the record; once the call waits for it
// (the handler right before its command, or, in a handler that did not
// wait, the pipeline after the handler returned), the command's marker
// must not exist yet.
func TestCommandWaitsForDurableStart(t *testing.T) {
	st := &heldStartStore{Memory: store.NewMemory(0), entered: make(chan struct{}, 1), release: make(chan struct{})}
	marker, done := startHeld(t, st)
	receive(t, st.entered)
	awaitStartRecordWait(t)
	if _, err := os.Stat(marker); err == nil {
		close(st.release)
		t.Fatal("the command ran before its start record was on disk")
	}
	close(st.release)
	if rec := receive(t, done); rec.Status != api.StatusSucceeded {
		t.Fatalf("call %s %+v, want succeeded", rec.Status, rec.Error)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the command did not run once recorded: %v", err)
	}
}

// awaitStartRecordWait returns once a goroutine is blocked waiting for a
// call's start record (the wait coordinator.startRecord returns, which
// tool.Call.Recorded calls). Nothing else marks that moment: the call
// then does nothing more until the record is written.
func awaitStartRecordWait(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); ; {
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "[chan receive") && strings.Contains(g, "coordinator.startRecord.func") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine waits for the start record after 10 s; goroutines:\n%s", stacks)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCommandNotRunWhenStartNotRecorded: a start record that fails fails
// the call, not_recorded, and the command never runs.
func TestCommandNotRunWhenStartNotRecorded(t *testing.T) {
	st := &heldStartStore{Memory: store.NewMemory(0), entered: make(chan struct{}, 1), release: make(chan struct{}), fail: true}
	close(st.release)
	marker, done := startHeld(t, st)
	receive(t, st.entered)
	rec := receive(t, done)
	if rec.Status != api.StatusFailed || rec.Error == nil || rec.Error.Code != api.ToolCodeNotRecorded {
		t.Fatalf("call %s %+v, want failed %s", rec.Status, rec.Error, api.ToolCodeNotRecorded)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran though its start was not recorded: %v", err)
	}
}
