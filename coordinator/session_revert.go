package coordinator

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Revert puts back the files a finished call wrote, as they were before
// the call, provided each still holds what the call left there (and a file
// the call deleted is still absent). Anything else would throw away a
// later change, so the whole revert is refused with code file_changed and
// the reason, and no file is touched.
func (c *Coordinator) Revert(s *Session, toolUseID string) (api.RevertResponse, error) {
	rec, _, found := s.Call(toolUseID)
	if !found {
		// A call older than those a restored session lists again is
		// still in the store, with its edits.
		rec, found = s.storedCall(toolUseID)
	}
	if !found {
		return api.RevertResponse{}, &api.Error{Code: api.CodeNotFound, Message: "no such call in this session"}
	}
	if rec.State != api.StateDone {
		return api.RevertResponse{}, &api.Error{Code: api.CodeConflict, Message: "the call has not finished; cancel it or wait for it before reverting"}
	}
	priors, ok := s.Files.TakePriors(toolUseID)
	if !ok {
		return api.RevertResponse{}, &api.Error{Code: api.CodeConflict, Message: "nothing to revert: the call changed no file, " +
			"was already reverted, or its prior content is no longer kept (the session keeps a bounded number of recent edits)"}
	}
	// The checks and the undo are one step under the files' edit locks, so
	// an edit from another session cannot land between them and be lost.
	paths := make([]string, len(priors))
	for i, p := range priors {
		paths[i] = p.Path
	}
	unlock := c.workspace.LockForEdit(paths...)
	defer unlock()
	current := make([][]byte, len(priors))
	for i, p := range priors {
		cur, err := c.checkUnchanged(p)
		if err != nil {
			s.Files.PutBackPriors(priors)
			return api.RevertResponse{}, err
		}
		current[i] = cur
	}
	resp := api.RevertResponse{ToolUseID: toolUseID}
	// Undo in reverse order of writing: a move's new file goes before its
	// old one comes back.
	for i := len(priors) - 1; i >= 0; i-- {
		p := priors[i]
		st, diff, err := p.Undo(current[i])
		if err != nil {
			s.Files.PutBackPriors(priors[:i+1])
			return api.RevertResponse{}, fmt.Errorf("revert %s: %w", p.Path, err)
		}
		action := api.RevertRestored
		if p.Existed {
			s.Files.Remember(p.Path, st)
		} else {
			action = api.RevertDeleted
			s.Files.Forget(p.Path)
		}
		resp.Files = append([]api.RevertedFile{{Path: p.Path, Action: action, Diff: diff}}, resp.Files...)
	}
	first := resp.Files[0]
	resp.Path, resp.Action, resp.Diff = first.Path, first.Action, first.Diff
	return resp, nil
}

// checkUnchanged reads the file a Prior names and returns its content if
// it still matches the state the call left it in; for a file the call
// deleted, it checks that the path is still free.
func (c *Coordinator) checkUnchanged(p tool.Prior) ([]byte, error) {
	changed := func(why string) error {
		return &api.Error{Code: api.CodeFileChanged, Message: fmt.Sprintf(
			"%s has changed since call %s wrote it (%s); reverting would lose that change", p.Path, p.ToolUseID, why)}
	}
	f, err := c.workspace.Root.Open(p.Path)
	if p.Deleted {
		if err == nil {
			f.Close()
			return nil, changed("the call deleted it and it exists again")
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open %s: %w", p.Path, err)
		}
		return nil, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, changed("it no longer exists")
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p.Path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", p.Path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, changed("it is no longer a regular file")
	}
	if info.Size() != p.After.Size {
		return nil, changed(fmt.Sprintf("size %d -> %d bytes", p.After.Size, info.Size()))
	}
	data, err := io.ReadAll(io.LimitReader(f, p.After.Size+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.Path, err)
	}
	if now := tool.StateOf(data, info.ModTime()); !now.Same(p.After) {
		return nil, changed(tool.DescribeChange(p.After, now))
	}
	return data, nil
}
