package api

// Preview is a writing tool's effect computed without applying it: on
// tool.partial events while a block streams in, and for approvals.
type Preview struct {
	// Diff is a unified diff of what the call would change; empty when it
	// would change nothing or could not be computed yet.
	Diff string `json:"diff"`
	// Error says why no diff could be computed (yet); empty otherwise.
	Error string `json:"error,omitempty"`
}

// RevertResponse answers POST /v1/sessions/{sid}/calls/{tool_use_id}/revert.
type RevertResponse struct {
	ToolUseID string `json:"tool_use_id"`
	// Path is the workspace-relative file the call had written.
	Path string `json:"path"`
	// Action is "restored" (the prior content is back) or "deleted" (the
	// call had created the file).
	Action string `json:"action"`
	// Diff is a unified diff of the revert itself.
	Diff string `json:"diff"`
}

// Revert actions.
const (
	RevertRestored = "restored"
	RevertDeleted  = "deleted"
)
