package api

import "time"

// ToolStatsResponse answers GET /v1/tool-stats: each tool's calls, errors
// and latency minute by minute over the last hour, from the server's own
// figures (what toolgate_tool_call_duration_seconds observes), oldest
// minute first. Minutes without calls are left out.
type ToolStatsResponse struct {
	// StepSeconds is the width of one point (60).
	StepSeconds int           `json:"step_seconds"`
	Minutes     []ToolsMinute `json:"minutes"`
}

// ToolsMinute is one minute's figures, by tool.
type ToolsMinute struct {
	// Start is the minute's first instant.
	Start time.Time    `json:"start"`
	Tools []ToolMinute `json:"tools"`
}

// ToolMinute is one tool's calls that finished in one minute, under the
// name its clients called it by, all dialects together.
type ToolMinute struct {
	Tool string `json:"tool"`
	// Calls finished; Errors those that did not succeed.
	Calls  int `json:"calls"`
	Errors int `json:"errors"`
	// MeanSeconds is the mean execution time (approval waits excluded);
	// P95Seconds the upper bound of the histogram bucket that holds the
	// 95th percentile.
	MeanSeconds float64 `json:"mean_seconds"`
	P95Seconds  float64 `json:"p95_seconds"`
}
