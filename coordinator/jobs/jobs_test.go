package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestTableForgetsEndedJobsOnly: a job outlives nothing of its table's
// context; its output is read back; Forget leaves a running job alone
// and drops an ended one; CloseAll ends what still runs.
func TestTableForgetsEndedJobsOnly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var jobs tool.Jobs = NewTable(ctx)
	dir := t.TempDir()
	done, err := jobs.Start("toolu_1", tool.JobSpec{Command: "echo hi"}, dir, nil, sandbox.Run{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	running, err := jobs.Start("toolu_2", tool.JobSpec{Command: "sleep 30"}, dir, nil, sandbox.Run{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("echo did not end")
	}
	if out, _, err := done.Read(0, 100); err != nil || out != "hi\n" {
		t.Errorf("output = %q, %v; want hi", out, err)
	}
	jobs.Forget(running.ID())
	jobs.Forget(done.ID())
	if _, ok := jobs.Get(running.ID()); !ok {
		t.Error("a running job was forgotten")
	}
	if _, ok := jobs.Get(done.ID()); ok {
		t.Error("an ended job was kept after Forget")
	}
	jobs.(*Table).CloseAll()
	if st := running.State(); st != api.JobKilled {
		t.Errorf("state after CloseAll = %s, want killed", st)
	}
}

// TestReadNewEnds: an output longer than twice half reads as its first
// and last half bytes and the count of those between; a shorter one
// whole; each read starts where the previous one ended.
func TestReadNewEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobs := NewTable(ctx)
	defer jobs.CloseAll()
	dir := t.TempDir()
	j, err := jobs.Start("toolu_1", tool.JobSpec{Command: "seq 1 1000"}, dir, nil, sandbox.Run{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("seq did not end")
	}
	// seq 1 1000 writes 3893 bytes.
	head, tail, omitted, err := j.ReadNewEnds(6)
	if err != nil || head != "1\n2\n3\n" || tail != "\n1000\n" || omitted != 3893-12 {
		t.Errorf("ReadNewEnds(6) = %q, %q, %d, %v; want 1 to 3, 1000 and 3881 left out", head, tail, omitted, err)
	}
	if head, tail, omitted, err := j.ReadNewEnds(6); head != "" || tail != "" || omitted != 0 || err != nil {
		t.Errorf("a second read = %q, %q, %d, %v; want nothing new", head, tail, omitted, err)
	}
}
