package coordinator

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// previewTimeout bounds one preview: it reads a file and diffs it, and a
// stream of partial blocks must not pile up behind a slow one.
const previewTimeout = 10 * time.Second

// previewPartials announces each partial block (a tool_use still streaming
// in) with a tool.partial event carrying its preview, and returns the
// complete blocks, the only ones to run. A partial block claims no call id,
// so the complete block with the same id runs normally later.
func (c *Coordinator) previewPartials(s *Session, msgID string, uses []api.ToolUse) []api.ToolUse {
	if !slices.ContainsFunc(uses, func(u api.ToolUse) bool { return u.Partial }) {
		return uses // the usual message: nothing to preview, nothing copied
	}
	complete := uses[:0:0]
	for _, use := range uses {
		if !use.Partial {
			complete = append(complete, use)
			continue
		}
		c.PreviewPartial(s, msgID, use)
	}
	return complete
}

// PreviewPartial emits a tool.partial event for a tool_use block that is
// still streaming in, with the preview of its input so far. Nothing runs
// and no call id is claimed.
func (c *Coordinator) PreviewPartial(s *Session, msgID string, use api.ToolUse) {
	s.Events.Append(api.Event{Type: api.EventToolPartial, MessageID: msgID, ToolUseID: use.ID, Preview: c.previewPartial(s, use)})
}

// previewPartial computes what a partial block would do so far. It never
// writes; it says why when there is nothing to show yet. Tools without a
// preview get none.
func (c *Coordinator) previewPartial(s *Session, use api.ToolUse) (p *api.Preview) {
	defer func() {
		if r := recover(); r != nil {
			c.logger.Error("tool preview panicked", "tool", use.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			p = &api.Preview{Error: "the preview failed unexpectedly (internal error)"}
		}
	}()
	// Read as the complete block will be (the prepare stage's reading):
	// a block streamed with Cline's task_progress, an alias or a number
	// written as a string previews what it will do.
	d, stop := c.decodeUse(s, use)
	if stop != nil || !d.tool.HasPreview() {
		return nil
	}
	tool := d.tool
	if s.Mode() == api.ModePlan {
		return &api.Preview{Error: "plan mode: tools that change files are not available"}
	}
	if d.err != nil {
		return &api.Preview{Error: d.err.Error()}
	}
	in := d.input
	// A partial block has not passed the policy stage: it may show nothing
	// the ignore rules hide.
	sub, _ := c.buildSubject(tool, in, d.raw, nil)
	if parts, blocked := c.ignoreBlock(c.ignoreMatcher(), sub); blocked {
		return &api.Preview{Error: strings.Join(parts, "\n\n")}
	}
	diff, msg := c.toolPreview(s.ctx, s, tool, in, use.ID, true)
	return &api.Preview{Diff: diff, Error: msg}
}

// toolPreview runs a tool's Preview under a time limit and returns the
// diff, or why there is none.
func (c *Coordinator) toolPreview(ctx context.Context, s *Session, t *tool.Tool, in any, toolUseID string, partial bool) (diff, why string) {
	defer func() {
		if r := recover(); r != nil {
			c.logger.Error("tool preview panicked", "tool", t.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			diff, why = "", "the preview failed unexpectedly (internal error)"
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	call := &tool.Call{
		ToolUseID: toolUseID, Name: t.Name, SessionID: s.ID, Workspace: c.workspace,
		Logger: c.logger.With("session_id", s.ID, "tool_use_id", toolUseID, "tool", t.Name),
		Files:  s.Files, Partial: partial, Texts: c.texts(s.Dialect()),
	}
	diff, err := t.Preview(ctx, call, in)
	if err != nil {
		return "", err.Error()
	}
	return diff, ""
}
