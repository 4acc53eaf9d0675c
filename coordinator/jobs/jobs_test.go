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
