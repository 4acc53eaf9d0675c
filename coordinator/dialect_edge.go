package coordinator

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// dialectCall is a call of a dialect tool after the inbound edge: the tool
// the model named and how its call was mapped.
type dialectCall struct {
	tool    *tool.DialectTool
	mapping tool.Mapping
}

// translate is the pipeline's inbound edge. It maps a call in the
// session's dialect onto a registry tool and that tool's input; MCP names
// (mcp__server__tool) mean the same in every dialect and become
// use_mcp_tool calls. A call the dialect cannot map ends here with its
// outcome.
func (c *Coordinator) translate(s *Session, use api.ToolUse) (string, json.RawMessage, *dialectCall, *outcome) {
	d := s.Dialect()
	if _, _, ok := ParseMCPName(use.Name); ok || c.speaksRegistry(d) {
		mark := ""
		if x := c.sessionDialect(d); x != nil {
			mark = x.MCPNameMark
		}
		name, raw := c.normalizeName(use.Name, use.Input, mark)
		return name, raw, nil, nil
	}
	dt := c.dialects[d][use.Name]
	if dt == nil {
		if strings.HasPrefix(use.Name, tool.SubagentPrefix) {
			return use.Name, use.Input, nil, nil
		}
		out := failure(api.StatusUnknownTool, api.ToolCodeUnknownTool, c.unknownToolMessage(d, use.Name))
		return "", nil, nil, &out
	}
	in, err := DecodeDialectInput(dt, c.validate, use.Input)
	if err != nil {
		msg := err.Error()
		if x := c.dialect(d); x != nil && x.InvalidInput != nil {
			if own := x.InvalidInput(dt, use.Input); own != "" {
				msg = own
			}
		}
		out := failure(api.StatusInvalid, api.ToolCodeInvalid, msg)
		return "", nil, nil, &out
	}
	m, err := dt.Map(tool.MapEnv{Workspace: c.workspace, Has: c.registry.has, Dir: s.ShellDir}, in)
	if err == nil {
		var raw json.RawMessage
		if raw, err = json.Marshal(m.Input); err == nil {
			return m.Tool, raw, &dialectCall{tool: dt, mapping: m}, nil
		}
	}
	var out outcome
	var ie *InputError
	var te *tool.ToolError
	switch {
	case asError(err, &ie):
		out = failure(api.StatusInvalid, api.ToolCodeInvalid, err.Error())
	case asError(err, &te) && te.Code == api.ToolCodeInvalid:
		out = failure(api.StatusInvalid, te.Code, te.Message)
	case asError(err, &te):
		out = failure(api.StatusFailed, te.Code, te.Message)
	default:
		out = failure(api.StatusFailed, api.ToolCodeFailed, err.Error())
	}
	return "", nil, nil, &out
}

// reword is the pipeline's outbound edge, after execute: the dialect words
// the result as its model expects, so PostToolUse hooks and the record see
// the dialect's texts. Calls outside a dialect keep their result.
func (c *Coordinator) reword(cs *callState) {
	dc := cs.dialect
	if dc == nil || dc.mapping.Result == nil || cs.end == nil {
		return
	}
	cs.end.result = dc.mapping.Result(cs.end.result, cs.end.code)
}

// unknownToolMessage answers a name the session's pool lacks, naming the
// dialect that has it, so the client knows which dialect its model speaks.
func (c *Coordinator) unknownToolMessage(d api.Dialect, name string) string {
	if d == "" {
		d = api.DefaultDialect
	}
	msg := "No handler registered for tool: " + name
	var owners []string
	for _, o := range c.dialects.dialectsOf(name) {
		owners = append(owners, string(o))
	}
	if !c.speaksRegistry(d) {
		// The registry's names are the default dialect's.
		if t, _ := c.registry.lookup(name); t != nil {
			owners = append([]string{string(api.DefaultDialect)}, owners...)
		}
	}
	if len(owners) == 0 {
		if x := c.dialect(d); x != nil && x.UnknownTool != nil {
			return x.UnknownTool(name)
		}
		return msg
	}
	return msg + fmt.Sprintf(". %s is a tool of the %s dialect, and this session speaks %s: "+
		`create the session with "dialect": %q (or PATCH it) to use it.`, name, strings.Join(owners, " and "), d, owners[0])
}
