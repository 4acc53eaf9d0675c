package api

import "time"

// JobState is where a background job is in its life.
type JobState string

// Job states.
const (
	JobRunning JobState = "running"
	JobExited  JobState = "exited"
	JobKilled  JobState = "killed"
	JobFailed  JobState = "failed"
)

// Job is a background command of a session: started by a call to outlive
// it, ended by a kill or with the session.
type Job struct {
	ID        string     `json:"id"`
	Command   string     `json:"command"`
	ToolUseID string     `json:"tool_use_id"`
	State     JobState   `json:"state"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	// ExitCode is set once it exited (-1 for a signal).
	ExitCode *int `json:"exit_code,omitempty"`
	// Reason says why it failed or how it was ended.
	Reason string `json:"reason,omitempty"`
	// OutputBytes is how much output can be read so far.
	OutputBytes int64 `json:"output_bytes"`
}

// JobList is GET /v1/sessions/{sid}/jobs.
type JobList struct {
	Jobs []Job `json:"jobs"`
}

// JobOutput is a slice of a job's output.
type JobOutput struct {
	Job Job `json:"job"`
	// Output is the text from offset on; NextOffset continues after it.
	Output     string `json:"output"`
	Offset     int64  `json:"offset"`
	NextOffset int64  `json:"next_offset"`
}
