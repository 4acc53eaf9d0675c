package api

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
