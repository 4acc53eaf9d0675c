package handlers

import (
	"context"

	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/patch"
)

// PatchFilesInput is patch_files' input: apply_patch's patch, with the
// choices clients of the same format make differently.
type PatchFilesInput struct {
	Patch string `json:"patch" validate:"required" jsonschema:"the patch, in apply_patch's format (*** Begin Patch ... *** End Patch)"`
	// AddReplaces lets "*** Add File:" replace an existing file, as the
	// Codex CLI's apply_patch does; apply_patch refuses it.
	AddReplaces bool `json:"add_replaces,omitempty" jsonschema:"let *** Add File: replace a file that exists"`
}

// newPatchFiles serves patch_files, apply_patch for dialects: the same
// planning, checks and all-or-nothing writes, answered with apply_patch's
// plain summary.
func newPatchFiles(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[PatchFilesInput]{
		Name:        name,
		Description: "Apply a patch in apply_patch's format to the workspace, every file or none.",
		Run: func(ctx context.Context, call *tool.Call, in *PatchFilesInput) (tool.Result, error) {
			return applyPatch(call, in.Patch, in.AddReplaces, env.OmitFinalFileContent)
		},
		Preview: func(ctx context.Context, call *tool.Call, in *PatchFilesInput) (string, error) {
			plan, err := planPatch(call, in.Patch, in.AddReplaces, nil)
			if err != nil {
				return "", err
			}
			return plan.diff(), nil
		},
		Interrupt: tool.InterruptBlock,
		Writes:    true,
		Paths:     func(in *PatchFilesInput) []string { return patch.Paths(in.Patch) },
	})
}
