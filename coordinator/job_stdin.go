package coordinator

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/randid"
	"github.com/toolgate/toolgate/internal/store"
)

// WriteJobStdin writes data to a job's standard input for a client (by
// names its token) and records the write in the audit log as a
// job_stdin entry: the job, the bytes as text (or their hash and size
// above the store's cap), who wrote them and whether they went in.
func (c *Coordinator) WriteJobStdin(s *Session, jobID string, data []byte, by string) (int, api.Job, error) {
	j, ok := s.Job(jobID)
	if !ok {
		return 0, api.Job{}, &api.Error{Code: api.CodeNotFound, Message: "no such job in this session"}
	}
	start := time.Now().UTC()
	n, err := j.Write(data)
	if c.rec != nil {
		input, _ := json.Marshal(map[string]any{"id": jobID, "input": string(data)})
		row := store.Call{Seq: c.rec.st.NextSeq(), SessionID: s.ID, ToolUseID: "stdin_" + randid.Hex(12), Tool: tool.JobStdinTool,
			State: string(api.StateDone), Status: string(api.StatusSucceeded), Decision: "allow", DecidedBy: by,
			StartedAt: start, DurationMS: float64(time.Since(start).Microseconds()) / 1000}
		if err != nil {
			row.Status, row.ErrorCode = string(api.StatusFailed), api.ToolCodeFailed
		}
		row.Input, row.InputSHA256, row.InputBytes = boundInput(input, false)
		_ = c.rec.apply(store.Committed, store.PutCall{Call: row})
	}
	switch {
	case errors.Is(err, tool.ErrNoStdin), errors.Is(err, tool.ErrJobEnded):
		return n, j.Info(), &api.Error{Code: api.CodeConflict, Message: err.Error()}
	case err != nil:
		return n, j.Info(), err
	}
	return n, j.Info(), nil
}
