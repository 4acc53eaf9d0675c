package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// JobStdinInput is job_stdin's input: what to write to a background
// job's standard input, and how long to wait for its output after.
type JobStdinInput struct {
	ID    string `json:"id" validate:"required" jsonschema:"the background job's id"`
	Input string `json:"input,omitempty" jsonschema:"text to write to the job's standard input (its terminal's, under tty); empty only reads"`
	Wait  int    `json:"wait,omitempty" validate:"min=0,max=600000" jsonschema:"milliseconds to wait for the job to end before answering with its new output"`
}

func newJobStdin(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[JobStdinInput]{
		Name:        name,
		Description: "Write to a background job's standard input, then answer with what it wrote since it was last read.",
		Run:         jobStdin,
	})
}

func jobStdin(ctx context.Context, call *tool.Call, in *JobStdinInput) (tool.Result, error) {
	j, ok := call.Job(in.ID)
	if !ok {
		return tool.Result{}, tool.Errorf(api.ToolCodeNotFound, "No job with id %s in this session.", in.ID)
	}
	if in.Input != "" {
		_, err := j.Write([]byte(in.Input))
		if errors.Is(err, tool.ErrJobEnded) {
			// It ended after its last answer: answer its end, as Codex's
			// write_stdin does (its input went nowhere).
			return yieldJob(ctx, call, j, 0)
		}
		if err != nil {
			if !errors.Is(err, tool.ErrNoStdin) {
				return tool.Result{}, err
			}
			return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "Cannot write to job %s: %v", in.ID, err)
		}
	}
	return yieldJob(ctx, call, j, time.Duration(in.Wait)*time.Millisecond)
}
