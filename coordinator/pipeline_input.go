package coordinator

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// decodedUse is what the prepare stage reads out of a tool_use: the tool
// it reaches and its input, raw and decoded. A PreToolUse hook's
// updatedInput is read into one too (preHooks), so that it means what the
// same input from the model would.
type decodedUse struct {
	tool *tool.Tool
	// raw is the input after the inbound edge, task_progress taken out,
	// the dialect's aliases and empty strings, and string coercion: what
	// is decoded, judged and shown.
	raw   json.RawMessage
	input any
	// err is why raw does not decode or validate, an *InputError; tool
	// and raw are set, input is nil.
	err error
	// dialect is how the session's dialect mapped the call, nil for the
	// registry's own names.
	dialect *dialectCall
	// progress is the task_progress checklist taken out of the input;
	// hasProgress says the parameter was there.
	progress    string
	hasProgress bool
}

// decodeUse reads a tool_use in the session's dialect into its tool and
// input: the dialect's inbound edge (which also normalizes MCP names),
// task_progress taken out, the dialect's parameter aliases, lookup in the
// registry, the dialect's empty strings as missing ones, string coercion,
// decode and validate. A call that reaches no tool toolgate runs ends with
// the outcome; an input that does not decode sets d.err.
func (c *Coordinator) decodeUse(s *Session, use api.ToolUse) (d decodedUse, stop *outcome) {
	dl := s.Dialect()
	name, raw, dc, stop := c.translate(s, use)
	if stop != nil {
		return d, stop
	}
	d.dialect = dc
	if dc == nil && name == use.Name {
		// An MCP tool's input is its own arguments; every other Cline
		// tool may carry the conversation's checklist.
		raw, d.progress, d.hasProgress = splitTaskProgress(raw)
		if x := c.sessionDialect(dl); x != nil {
			raw = renameAliases(x.ParamAliases[name], raw)
		}
	}
	t, owned := c.registry.lookup(name)
	if dc != nil {
		t, owned = c.registry.lookupTarget(name)
	}
	switch {
	case !owned:
		out := failure(api.StatusFailed, api.ToolCodeNotOwned,
			fmt.Sprintf("Tool %s is handled by the client, not by toolgate.", name))
		return d, &out
	case t == nil && name == UseSubagents:
		// Cline's use_subagents (SubagentToolHandler.ts) on a toolgate
		// that runs no subagents: the client may run them itself.
		out := failure(api.StatusFailed, api.ToolCodeNotOwned,
			fmt.Sprintf("Tool %s is handled by the client, not by toolgate (no subagents are configured on this toolgate).", name))
		return d, &out
	case t == nil:
		msg := c.unknownToolMessage(dl, use.Name)
		if name == tool.UseMCPTool {
			msg += " (no MCP servers are configured on this toolgate)"
		}
		out := failure(api.StatusUnknownTool, api.ToolCodeUnknownTool, msg)
		return d, &out
	}
	if x := c.sessionDialect(dl); dc == nil && name == use.Name && x != nil && x.EmptyIsMissing {
		raw = emptyIsMissing(raw, t.InputType())
	}
	d.tool, d.raw = t, coerceStrings(raw, t.ParamTypes())
	d.input, d.err = decodeCoerced(t, c.validate, d.raw)
	return d, nil
}
