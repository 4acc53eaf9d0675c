package handlers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/process"
)

// jobYieldMax bounds the output one yield returns: its first and last
// half, the bytes between left out, as Codex's unified exec keeps a
// command's output (its token budget cuts further).
const jobYieldMax = 1 << 20

// yieldJob waits up to wait for a job to end, then answers with what it
// wrote since it was last read: a job that ended as a foreground command
// is answered (its exit status and output), one still running as
// JobRunningText says. A job seen ended is forgotten, as Codex forgets a
// session whose exit it reported. This is how a client that keeps commands as
// sessions (Codex's exec_command, write_stdin) sees them.
func yieldJob(ctx context.Context, call *tool.Call, j tool.Job, wait time.Duration) (tool.Result, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-j.Done():
	case <-timer.C:
	case <-ctx.Done():
		return tool.Result{}, ctx.Err()
	}
	info := j.Info() // before reading: output read after an end is whole
	head, tail, omitted, err := j.ReadNewEnds(jobYieldMax / 2)
	if err != nil {
		return tool.Result{}, err
	}
	out := head + tail
	var note []api.Content
	if omitted > 0 {
		out = head + fmt.Sprintf(OmittedMarker, omitted) + tail
		note = []api.Content{api.TextContent(fmt.Sprintf(OmittedNote, omitted))}
	}
	if info.State == api.JobRunning {
		return tool.Result{Content: append([]api.Content{api.TextContent(JobRunningText(j.ID(), out))}, note...)}, nil
	}
	call.ForgetJob(j.ID()) // its end is reported: no session to write to any more
	res := process.Result{ExitCode: -1}
	if info.ExitCode != nil {
		res.ExitCode = *info.ExitCode
	}
	if sig, ok := strings.CutPrefix(info.Reason, "killed by signal "); ok {
		res.Signal = sig
	} else if info.ExitCode == nil {
		res.Signal = "SIGKILL" // killed, or stopped at a sandbox limit
	}
	result := tool.Result{Content: append([]api.Content{api.TextContent(call.Texts.CommandResult(res, out, ""))}, note...)}
	if res.ExitCode != 0 {
		return result, &tool.ToolError{Code: api.ToolCodeExitStatus}
	}
	return result, nil
}

// OmittedMarker stands, in a yield's output, for the bytes left out
// between its first and last 512 KiB (Codex's words); OmittedNote, a
// block after the output, counts them.
const (
	OmittedMarker = "\n... %d bytes omitted ...\n"
	OmittedNote   = "(%d bytes of output were left out between its first and last 512 KiB.)"
)

// JobRunningText is the answer for a job still running after a yield:
// its id on the first line, then what it wrote since it was last read.
func JobRunningText(id, output string) string {
	return fmt.Sprintf("Job %s is still running.\nOutput:\n%s", id, output)
}
