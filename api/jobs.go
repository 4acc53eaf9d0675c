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
	// Stdin says the job's standard input is open for
	// POST /v1/sessions/{sid}/jobs/{jid}/stdin.
	Stdin bool `json:"stdin"`
	// Terminal is the window of the pseudo-terminal the job runs under;
	// absent for a job on pipes.
	Terminal *TerminalSize `json:"terminal,omitempty"`
}

// TerminalSize is a terminal's window in characters.
type TerminalSize struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
}

// JobStdinRequest is POST /v1/sessions/{sid}/jobs/{jid}/stdin: what to
// write, as text or as base64 bytes (one of the two); Rows and Cols,
// when both set, resize the job's terminal first.
type JobStdinRequest struct {
	Text   *string `json:"text,omitempty"`
	Base64 string  `json:"base64,omitempty"`
	Rows   int     `json:"rows,omitempty"`
	Cols   int     `json:"cols,omitempty"`
}

// JobStdinResponse answers a write: the bytes written and the job.
type JobStdinResponse struct {
	Written int `json:"written"`
	Job     Job `json:"job"`
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
