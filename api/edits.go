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
	// Files lists every file the revert put back, the first being the one
	// Path, Action and Diff describe; a call that wrote several files
	// (apply_patch) is reverted as a whole.
	Files []RevertedFile `json:"files"`
}

// RevertedFile is one file a revert put back.
type RevertedFile struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	Diff   string `json:"diff"`
}

// Revert actions.
const (
	RevertRestored = "restored"
	RevertDeleted  = "deleted"
)
