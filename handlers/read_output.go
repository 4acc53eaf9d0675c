package handlers

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/outfiles"
)

// ReadOutputInput is read_output's input: a window of one of the
// session's output files (a command's whole output, a background job's
// output), by the absolute path an answer named. Claude Code's Read maps
// a path outside the workspace onto it.
type ReadOutputInput struct {
	Path   string `json:"path" validate:"required" jsonschema:"absolute path of the output file, as a command's answer named it"`
	Offset int    `json:"offset,omitempty" validate:"omitempty,min=1" jsonschema:"first line to read, 1-based (default 1)"`
	Limit  int    `json:"limit,omitempty" validate:"omitempty,min=1" jsonschema:"how many lines to read (default: all)"`
}

// newReadOutput serves the calling session's output files, and only
// them: another session's file, a name that is not an output file's and
// any other path outside the workspace are refused as read_lines refuses
// a path outside the workspace. It touches no workspace path, so the
// ignore rules and path rules (Read(secret.txt)) do not judge it: the
// output of a command is not a workspace file (what the command could
// read was judged when it ran); a bare Read deny rule still holds.
func newReadOutput(name string, env tool.Env) *tool.Tool {
	var area tool.OutputFiles
	if env.Commands != nil {
		area = env.Commands.Outputs
	}
	return tool.NewTool(tool.Spec[ReadOutputInput]{
		Name: name,
		Description: "Read one of the session's output files (the whole output of a command too long for its result, a background " +
			"command's output) in `cat -n` form, by the absolute path the command's answer named.",
		Run: func(ctx context.Context, call *tool.Call, in *ReadOutputInput) (tool.Result, error) {
			return readOutput(call, area, in)
		},
		ConcurrencySafe: func(*ReadOutputInput) bool { return true },
	})
}

func readOutput(call *tool.Call, area tool.OutputFiles, in *ReadOutputInput) (tool.Result, error) {
	rel, ok := "", false
	if area != nil {
		rel, ok = area.Rel(call.SessionID, in.Path)
	}
	if !ok {
		// The words of any path outside the workspace.
		_, err := call.Workspace.Rel(in.Path)
		if err == nil {
			err = tool.Errorf(api.ToolCodeOutside, "Path %s is outside the workspace.", in.Path)
		}
		return tool.Result{}, err
	}
	if job, ok := strings.CutPrefix(rel, outfiles.TasksDir+"/"); ok {
		if err := writeJobOutput(call, area, rel, strings.TrimSuffix(job, ".output")); err != nil {
			return tool.Result{}, err
		}
	}
	f, _, err := area.Open(call.SessionID, in.Path)
	if errors.Is(err, outfiles.ErrNotOutput) {
		return tool.Result{}, tool.Errorf(api.ToolCodeOutside, "Path %s is not one of the session's output files.", in.Path)
	}
	if err != nil {
		return tool.Result{}, fileError(rel, err)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if isBinary(head[:n]) {
		return tool.Result{}, tool.Errorf(api.ToolCodeBinaryFile, "Cannot read %s: it is a binary file, not text.", rel)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return tool.Result{}, fileError(rel, err)
	}
	return numberedWindow(f, rel, &ReadLinesInput{Offset: in.Offset, Limit: in.Limit, Split: true})
}

// writeJobOutput writes the output so far of the session's background
// job id to its output file, when it is read: the job keeps its output
// (capped, spilled past memory) whatever happens, and a Read sees all it
// wrote up to that moment, as a file kept up to date would show, without
// a second copy growing while nobody reads it. A job of another session
// is not found: each session has its own table of jobs.
func writeJobOutput(call *tool.Call, area tool.OutputFiles, rel, id string) error {
	job, ok := call.Job(id)
	if !ok {
		return tool.Errorf(api.ToolCodeNotFound, "File not found: %s (no background job %s in this session)", rel, id)
	}
	_, _, err := area.Save(call.SessionID, call.SessionDone, rel, &jobReader{job: job})
	if err != nil {
		return tool.Errorf(api.ToolCodeIOError, "Cannot write %s: %v", rel, err)
	}
	return nil
}

// jobReader reads a job's output from its start, as far as it goes now.
type jobReader struct {
	job tool.Job
	at  int64
}

func (r *jobReader) Read(p []byte) (int, error) {
	s, next, err := r.job.Read(r.at, len(p))
	if err != nil {
		return 0, err
	}
	if s == "" || next == r.at {
		return 0, io.EOF
	}
	r.at = next
	return copy(p, s), nil
}
