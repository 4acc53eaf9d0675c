package handlers

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/coordinator/jobs"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/dialect/cline"
	"github.com/toolgate/toolgate/internal/sandbox"
)

// TestJobStdinToAnEndedJob: input for a job under a terminal that ended
// after its last answer is answered with its end, and the job is then
// forgotten, as Codex's write_stdin answers a process that exited.
func TestJobStdinToAnEndedJob(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	table := jobs.NewTable(ctx)
	defer table.CloseAll()
	dir := t.TempDir()
	j, err := table.Start("toolu_1", tool.JobSpec{Command: "exit 3", Terminal: &tool.TerminalSize{}}, dir, nil, sandbox.Run{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.Done():
	case <-ctx.Done():
		t.Fatal("the job did not end")
	}
	call := &tool.Call{ToolUseID: "toolu_2", Texts: cline.Texts{}, PlainResults: true}
	call.Attach(tool.Runtime{Jobs: table})
	res, err := jobStdin(ctx, call, &JobStdinInput{ID: j.ID(), Input: "x"})
	if got := res.LastText(); got != "Command failed with exit code 3." {
		t.Errorf("result %q (%v), want the job's end", got, err)
	}
	if _, ok := table.Get(j.ID()); ok {
		t.Error("the job whose end was answered is still kept")
	}
}
