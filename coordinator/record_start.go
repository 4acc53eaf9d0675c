package coordinator

import (
	"sync"

	"github.com/toolgate/toolgate/api"
)

// recordStart records a call's start (recorder.callStarted: on disk for a
// call with effects) and then announces it (tool.started). An error means
// the call must not run.
func recordStart(s *Session, e *callEntry, rec api.CallRecord) error {
	if err := s.rec.callStarted(s, e); err != nil {
		return err
	}
	announceStarted(s, rec)
	return nil
}

// startRecord is recordStart for a handler that waits for it itself
// (tool.Spec.AwaitsStart): the record is written while the handler
// prepares, and the returned wait, which the handler calls right before
// its first effect (tool.Call.Recorded) and the pipeline again once the
// handler returned, reports whether the call may run. The write and
// fsync of the record (~0.3 ms) then overlap execute_command's sandbox
// preparation (0.4-0.9 ms): bench/peers/run.sh, `true` via
// execute_command, docs/benchmarks.md.
func startRecord(s *Session, e *callEntry, rec api.CallRecord) func() error {
	write := s.rec.callStarting(s, e)
	return sync.OnceValue(func() error {
		if write != nil {
			if err := write(); err != nil {
				return err
			}
		}
		announceStarted(s, rec)
		return nil
	})
}

// announceStarted tells the session's streams that the call started
// (tool.started), once its start is recorded.
func announceStarted(s *Session, rec api.CallRecord) {
	s.Events.AppendCall(api.Event{Type: api.EventToolStarted, MessageID: rec.MessageID, ToolUseID: rec.ToolUseID}, &rec)
}

// notRecorded is the end of a call whose start could not be recorded: it
// did not run.
func notRecorded() outcome {
	return failure(api.StatusFailed, api.ToolCodeNotRecorded, "The call was not run: toolgate could not record it in its store (see the server log).")
}
