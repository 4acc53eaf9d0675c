package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/patch"
)

// ApplyPatchInput is the input of apply_patch, as Cline's tool spec
// (apps/vscode/src/core/prompts/system-prompt/tools/apply_patch.ts) names it.
type ApplyPatchInput struct {
	Input string `json:"input" validate:"required" jsonschema:"the patch: *** Begin Patch, then *** Add File: / *** Update File: (optionally *** Move to:) / *** Delete File: sections with @@ anchors and -/+/space lines, then *** End Patch"`
}

// newApplyPatch serves apply_patch: Cline's ApplyPatchHandler and Codex's
// apply-patch format, applied to every file of the patch or to none.
func newApplyPatch(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ApplyPatchInput]{
		Name: name,
		Description: "Add, update, move and delete files with one patch in the V4A format:\n" +
			"*** Begin Patch\n*** Update File: path/to/file\n@@ class or function the change is in\n context line\n-old line\n+new line\n context line\n*** End Patch\n" +
			"Sections: \"*** Add File: <path>\" (every line starts with +), \"*** Update File: <path>\" (optionally followed by " +
			"\"*** Move to: <new path>\"), \"*** Delete File: <path>\". Show about 3 lines of context around each change; " +
			"use @@ lines to name the class or function when context alone is ambiguous. No line numbers. " +
			"Context is matched exactly, then ignoring trailing whitespace, then ignoring surrounding whitespace. " +
			"Every file of the patch changes, or none does: a hunk that does not apply leaves the workspace untouched and the " +
			"error shows the closest region. Files changed on disk since you last read them are refused (file_changed).",
		Run: func(ctx context.Context, call *tool.Call, in *ApplyPatchInput) (tool.Result, error) {
			return applyPatch(call, in.Input, false, env.OmitFinalFileContent)
		},
		Preview: func(ctx context.Context, call *tool.Call, in *ApplyPatchInput) (string, error) {
			plan, err := planPatch(call, in.Input, false, nil)
			if err != nil {
				return "", err
			}
			return plan.diff(), nil
		},
		Interrupt: tool.InterruptBlock,
		Writes:    true,
		Paths:     func(in *ApplyPatchInput) []string { return patch.Paths(in.Input) },
	})
}

// patchChange is one file section of a patch, worked out but not written.
type patchChange struct {
	op patch.FileOp
	// src is the file the section names, as it is now; dst the move
	// destination (nil without a move).
	src, dst *editTarget
	content  []byte // the new content (add and update)
}

// patchPlan is a whole patch, worked out against the workspace.
type patchPlan struct {
	changes []patchChange
	fuzz    int
}

// planPatch parses the patch and computes every file's new content
// without writing anything. Any section that cannot be applied fails the
// whole patch. With files (the session's memory) each file is checked
// against what the session last saw before its hunks are tried, so a
// stale file is reported as file_changed rather than as a hunk that does
// not match; the preview passes nil.
// With addReplaces an Add section may replace an existing file.
func planPatch(call *tool.Call, text string, addReplaces bool, files tool.Files) (*patchPlan, error) {
	ops, err := patch.Parse(text)
	if err != nil {
		return nil, tool.Errorf(api.ToolCodeInvalidPatch, "%v. No file was changed.", err)
	}
	plan := &patchPlan{}
	for _, op := range ops {
		c, fuzz, err := planChange(call.Workspace, files, op, addReplaces)
		if err != nil {
			return nil, err
		}
		plan.changes = append(plan.changes, c)
		plan.fuzz = max(plan.fuzz, fuzz)
	}
	if err := plan.checkDistinct(); err != nil {
		return nil, err
	}
	return plan, nil
}

// planChange loads the file one section names and computes its new
// content.
func planChange(ws *tool.Workspace, files tool.Files, op patch.FileOp, addReplaces bool) (patchChange, int, error) {
	c := patchChange{op: op}
	src, err := loadTarget(ws, op.Path)
	if err != nil {
		return c, 0, err
	}
	if files != nil {
		if err := files.CheckFresh(src.rel, src.state, src.exists); err != nil {
			return c, 0, err
		}
	}
	c.src = src
	switch op.Kind {
	case patch.Add:
		if src.exists && !addReplaces {
			return c, 0, tool.Errorf(api.ToolCodeFileExists, "*** Add File: %s: the file already exists; use *** Update File: to change it. No file was changed.", src.rel)
		}
		c.content = []byte(op.Content)
		return c, 0, nil
	case patch.Delete:
		if !src.exists {
			return c, 0, tool.Errorf(api.ToolCodeNotFound, "*** Delete File: %s: the file does not exist. No file was changed.", src.rel)
		}
		return c, 0, nil
	}
	if !src.exists {
		return c, 0, tool.Errorf(api.ToolCodeNotFound, "*** Update File: %s: the file does not exist; use *** Add File: to create it. No file was changed.", src.rel)
	}
	if !isText(src.old) {
		return c, 0, tool.Errorf(api.ToolCodeBinaryFile, "*** Update File: %s: the file is not UTF-8 text, so a patch cannot change it. No file was changed.", src.rel)
	}
	if op.MoveTo != "" {
		dst, err := loadTarget(ws, op.MoveTo)
		if err != nil {
			return c, 0, err
		}
		if dst.exists && dst.rel != src.rel {
			return c, 0, tool.Errorf(api.ToolCodeFileExists, "*** Move to: %s: the file already exists; a move never overwrites a file. No file was changed.", dst.rel)
		}
		if dst.rel != src.rel {
			c.dst = dst
		}
	}
	// Hunks are matched against LF text without a byte order mark;
	// matchStyle puts the file's line endings and mark back.
	text := strings.TrimPrefix(strings.ReplaceAll(string(src.old), "\r\n", "\n"), "\uFEFF")
	out, fuzz, err := patch.Apply(text, op.Hunks)
	if err != nil {
		var he *patch.HunkError
		if errors.As(err, &he) {
			return c, 0, tool.Errorf(api.ToolCodeHunkFailed, "*** Update File: %s: %v\nNo file was changed: read the file again and redo this hunk against its current content.", src.rel, err)
		}
		return c, 0, err
	}
	c.content = matchStyle(src.old, []byte(out))
	return c, fuzz, nil
}

// checkDistinct refuses a patch whose sections name one file twice, after
// paths are cleaned ("a/../b" and "b" are one file).
func (p *patchPlan) checkDistinct() error {
	seen := map[string]bool{}
	for _, c := range p.changes {
		for _, t := range []*editTarget{c.src, c.dst} {
			if t == nil {
				continue
			}
			if seen[t.rel] {
				return tool.Errorf(api.ToolCodeInvalidPatch, "invalid patch: %s is named by two sections; put every change of one file in one section. No file was changed.", t.rel)
			}
			seen[t.rel] = true
		}
	}
	return nil
}

// diff is the whole patch as unified diffs, one per file, for approvals
// and for the result.
func (p *patchPlan) diff() string {
	var b strings.Builder
	for _, c := range p.changes {
		switch {
		case c.op.Kind == patch.Delete:
			fmt.Fprintf(&b, "deleted %s\n", c.src.rel)
			b.WriteString(diffText(c.src.rel, c.src.old, nil))
		case c.dst != nil:
			fmt.Fprintf(&b, "moved %s -> %s\n", c.src.rel, c.dst.rel)
			b.WriteString(diffText(c.dst.rel, c.src.old, c.content))
		case c.op.Kind == patch.Add:
			fmt.Fprintf(&b, "created %s\n", c.src.rel)
			b.WriteString(diffText(c.src.rel, nil, c.content))
		default:
			fmt.Fprintf(&b, "updated %s\n", c.src.rel)
			b.WriteString(diffText(c.src.rel, c.src.old, c.content))
		}
	}
	return b.String()
}

// applyPatch plans the patch, checks every file the session knows against
// what it last saw, and writes all files or none.
func applyPatch(call *tool.Call, text string, addReplaces, omitBody bool) (tool.Result, error) {
	// Planning, the stale checks and the writes are one step under the
	// edit locks of every file the patch names, as in editFile.
	unlock := call.Workspace.LockForEdit(patch.Paths(text)...)
	defer unlock()
	plan, err := planPatch(call, text, addReplaces, call.Files)
	if err != nil {
		return tool.Result{}, err
	}
	for _, c := range plan.changes {
		for _, t := range []*editTarget{c.src, c.dst} {
			if t != nil {
				if err := t.checkIgnored(call); err != nil {
					return tool.Result{}, err
				}
			}
		}
	}
	if err := writePlan(call, plan); err != nil {
		return tool.Result{}, err
	}
	if !call.PlainResults {
		// Cline's text alone, as cline@2.18.0 answers; a fuzzy match is
		// noted in a block of its own.
		res := tool.Result{Content: []api.Content{api.TextContent(plan.clineText(omitBody))}}
		if plan.fuzz > 0 {
			res.Content = append(res.Content, api.TextContent(fmt.Sprintf("Note: Patch applied with fuzz factor %d (%s).", plan.fuzz, fuzzName(plan.fuzz))))
		}
		return res, nil
	}
	return tool.TextResult(plan.summary()), nil
}

// clineText is Cline's answer to an applied patch (core/task/tools/
// handlers/ApplyPatchHandler.ts, v4.0.12, execute): its first line, then
// per file, in the patch's order, the final content in
// <final_file_content> as DiffViewProvider.saveChanges gives it (a moved
// file under its new path, then its old path as deleted), or "[deleted]",
// the lines joined by line ends. With omitBody each element holds the
// note Cline's context management leaves in place of a dropped body.
func (p *patchPlan) clineText(omitBody bool) string {
	lines := []string{"Successfully applied patch to the following files:"}
	final := func(rel string, content []byte) {
		body := clineFinalContent(rel, content, "")
		if body == "" || body == "\n" {
			return // Cline adds nothing for an empty finalContent
		}
		if omitBody {
			lines = append(lines, "\n<final_file_content path=\""+rel+"\"> "+clineDuplicateFileReadNotice+" </final_file_content>")
			return
		}
		lines = append(lines, "\n<final_file_content path=\""+rel+"\">", body, "</final_file_content>")
	}
	for _, c := range p.changes {
		switch {
		case c.op.Kind == patch.Delete:
			lines = append(lines, "\n"+c.src.rel+": [deleted]")
		case c.dst != nil:
			final(c.dst.rel, c.content)
			lines = append(lines, "\n"+c.src.rel+": [deleted]")
		default:
			final(c.src.rel, c.content)
		}
	}
	return strings.Join(lines, "\n")
}

// summary is the result text: Cline's first line, one line per file, the
// diffs and, as Cline notes it, the fuzz.
func (p *patchPlan) summary() string {
	var b strings.Builder
	b.WriteString("Successfully applied patch to the following files:\n")
	for _, c := range p.changes {
		switch {
		case c.op.Kind == patch.Delete:
			fmt.Fprintf(&b, "%s: [deleted]\n", c.src.rel)
		case c.dst != nil:
			fmt.Fprintf(&b, "%s: [moved from %s] (%s)\n", c.dst.rel, c.src.rel, describeSize(c.content))
		case c.op.Kind == patch.Add:
			fmt.Fprintf(&b, "%s: [created] (%s)\n", c.src.rel, describeSize(c.content))
		default:
			fmt.Fprintf(&b, "%s: [updated] (%s)\n", c.src.rel, describeSize(c.content))
		}
	}
	b.WriteString("\n" + p.diff())
	if p.fuzz > 0 {
		fmt.Fprintf(&b, "\nNote: Patch applied with fuzz factor %d (%s).\n", p.fuzz, fuzzName(p.fuzz))
	}
	return b.String()
}

func fuzzName(level int) string {
	switch level {
	case patch.FuzzTrailingSpace:
		return "trailing whitespace ignored"
	case patch.FuzzTrimmed:
		return "surrounding whitespace ignored"
	}
	return "typographic punctuation read as ASCII"
}
