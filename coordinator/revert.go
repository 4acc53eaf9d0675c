package coordinator

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Revert puts back the file a finished call wrote, as it was before the
// call, provided the file still holds what the call left there. Anything
// else would throw away a later change, so it is refused with code
// file_changed and the reason.
func (c *Coordinator) Revert(s *Session, toolUseID string) (api.RevertResponse, error) {
	rec, _, found := s.Call(toolUseID)
	if !found {
		return api.RevertResponse{}, &api.Error{Code: api.CodeNotFound, Message: "no such call in this session"}
	}
	if rec.State != api.StateDone {
		return api.RevertResponse{}, &api.Error{Code: api.CodeConflict, Message: "the call has not finished; cancel it or wait for it before reverting"}
	}
	p, ok := s.Files.TakePrior(toolUseID)
	if !ok {
		return api.RevertResponse{}, &api.Error{Code: api.CodeConflict, Message: "nothing to revert: the call changed no file, " +
			"was already reverted, or its prior content is no longer kept (the session keeps a bounded number of recent edits)"}
	}
	cur, err := c.checkUnchanged(p)
	if err != nil {
		s.Files.PutBackPrior(p)
		return api.RevertResponse{}, err
	}
	st, diff, err := p.Undo(cur)
	if err != nil {
		s.Files.PutBackPrior(p)
		return api.RevertResponse{}, fmt.Errorf("revert %s: %w", p.Path, err)
	}
	action := api.RevertRestored
	if p.Existed {
		s.Files.Remember(p.Path, st)
	} else {
		action = api.RevertDeleted
		s.Files.Forget(p.Path)
	}
	return api.RevertResponse{ToolUseID: toolUseID, Path: p.Path, Action: action, Diff: diff}, nil
}

// checkUnchanged reads the file a Prior names and returns its content if
// it still matches the state the call left it in.
func (c *Coordinator) checkUnchanged(p Prior) ([]byte, error) {
	changed := func(why string) error {
		return &api.Error{Code: api.CodeFileChanged, Message: fmt.Sprintf(
			"%s has changed since call %s wrote it (%s); reverting would lose that change", p.Path, p.ToolUseID, why)}
	}
	f, err := c.workspace.Root.Open(p.Path)
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
	if now := StateOf(data, info.ModTime()); !now.Same(p.After) {
		return nil, changed(tool.DescribeChange(p.After, now))
	}
	return data, nil
}
