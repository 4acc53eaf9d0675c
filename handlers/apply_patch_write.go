package handlers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/internal/atomicfile"
	"github.com/toolgate/toolgate/internal/patch"
)

// patchStep is one file operation of a patch being written, with what is
// needed to take it back.
type patchStep struct {
	rel     string
	removed bool   // the step deleted the file
	existed bool   // the file existed before the step
	old     []byte // its content before
	mode    fs.FileMode
	after   tool.FileState
	undo    func() error
}

// writePlan writes every file of a plan. Each write is atomic; when one
// fails, the steps already done are taken back in reverse order, so the
// workspace ends as it began. Only then are the session's file memory and
// revert history told.
func writePlan(call *tool.Call, plan *patchPlan) error {
	root := call.Workspace.Root
	var done []patchStep
	fail := func(rel string, err error) error {
		msg := fmt.Sprintf("writing %s failed: %v", rel, writeError(rel, err))
		if bad := rollback(done); len(bad) > 0 {
			return tool.Errorf(api.ToolCodeIOError, "%s. Taking back the files already written also failed for %s; check them by hand.", msg, strings.Join(bad, ", "))
		}
		if len(done) > 0 {
			return tool.Errorf(api.ToolCodeIOError, "%s. The %d file operation(s) already done were taken back: no file was changed.", msg, len(done))
		}
		return tool.Errorf(api.ToolCodeIOError, "%s. No file was changed.", msg)
	}
	for _, c := range plan.changes {
		switch {
		case c.op.Kind == patch.Delete:
			s, err := removeStep(root, c.src)
			if err != nil {
				return fail(c.src.rel, err)
			}
			done = append(done, s)
		case c.dst != nil:
			s, err := writeStep(call, c.dst, c.content)
			if err != nil {
				return fail(c.dst.rel, err)
			}
			done = append(done, s)
			s, err = removeStep(root, c.src)
			if err != nil {
				return fail(c.src.rel, err)
			}
			done = append(done, s)
		default:
			s, err := writeStep(call, c.src, c.content)
			if err != nil {
				return fail(c.src.rel, err)
			}
			done = append(done, s)
		}
	}
	record(call, done)
	return nil
}

// writeStep writes content to a target atomically, refusing a target the
// ignore rules cover where the write really lands.
func writeStep(call *tool.Call, t *editTarget, content []byte) (patchStep, error) {
	root := call.Workspace.Root
	if err := atomicfile.WriteVerified(root, t.rel, content, 0o644, t.verifier(call)); err != nil {
		return patchStep{}, err
	}
	s := patchStep{rel: t.rel, existed: t.exists, old: t.old, after: stateOnDisk(root, t.rel, content)}
	if t.exists {
		s.undo = func() error { return atomicfile.Write(root, t.rel, t.old, 0o644) }
	} else {
		s.undo = func() error { return root.Remove(t.rel) }
	}
	return s, nil
}

// removeStep deletes a target, keeping its content and mode to put it
// back.
func removeStep(root *os.Root, t *editTarget) (patchStep, error) {
	mode := fs.FileMode(0o644)
	if info, err := root.Lstat(t.rel); err == nil {
		mode = info.Mode().Perm()
	}
	if err := root.Remove(t.rel); err != nil {
		return patchStep{}, err
	}
	return patchStep{rel: t.rel, removed: true, existed: true, old: t.old, mode: mode,
		undo: func() error { return atomicfile.Write(root, t.rel, t.old, mode) }}, nil
}

// rollback takes back steps in reverse order and returns the paths it
// could not restore.
func rollback(done []patchStep) []string {
	var bad []string
	for i := len(done) - 1; i >= 0; i-- {
		if err := done[i].undo(); err != nil && !(errors.Is(err, fs.ErrNotExist) && !done[i].existed) {
			bad = append(bad, done[i].rel)
		}
	}
	return bad
}

// record tells the session what the patch left on disk and keeps every
// file's prior content, so the revert route can take the whole patch back.
func record(call *tool.Call, done []patchStep) {
	root := call.Workspace.Root
	for _, s := range done {
		call.Files.ForgetRead(call.Texts.ReadKey(s.rel))
		if s.removed {
			call.Files.Forget(s.rel)
		} else {
			call.Files.Remember(s.rel, s.after)
		}
		t := &editTarget{rel: s.rel, exists: s.existed, old: s.old}
		undo := t.undo(root)
		if s.removed {
			old, mode := s.old, s.mode
			undo = func([]byte) (tool.FileState, string, error) {
				if err := atomicfile.Write(root, t.rel, old, mode); err != nil {
					return tool.FileState{}, "", err
				}
				return stateOnDisk(root, t.rel, old), diffText(t.rel, nil, old), nil
			}
		}
		call.Files.KeepPrior(tool.Prior{
			ToolUseID: call.ToolUseID, Path: s.rel, Existed: s.existed, Deleted: s.removed,
			Content: s.old, After: s.after, Undo: undo,
		})
	}
}
