// Package cline is Cline's dialect (github.com/cline/cline, v4.0.12), the
// default of every session that names none.
//
// Cline's vocabulary is the registry's own: the tools of handlers.Default
// carry Cline's names and parameters, so the dialect declares no tools and
// maps nothing. What is Cline's own lives here: the texts the registry's
// tools and the pipeline answer in (Texts), how its pool lists the
// registry's schemas (listSchema), and how Cline's calls differ from the
// registry's (parameter aliases, empty strings as missing, its MCP tool
// names, the hooks after the approval).
package cline

import (
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Dialect is Cline's dialect, the default of every session.
func Dialect() tool.Dialect {
	return tool.Dialect{
		Name: api.DialectCline, ListSchema: listSchema, Texts: Texts{},
		// Cline runs PreToolUse hooks after the approval (ToolExecutor.ts
		// handleCompleteBlock: "PreToolUse hooks are now executed by
		// individual tool handlers after approval and before the actual
		// tool operation").
		HooksAfterApproval: true,
		ParamAliases:       paramAliases,
		// Cline's handlers test required parameters with `!value`
		// (WriteToFileToolHandler's content, ExecuteCommandToolHandler's
		// command, every path): an empty one is a missing one.
		EmptyIsMissing: true,
		MCPNameMark:    mcpMark,
		// SearchAll: Cline's regexSearchFiles runs ripgrep with --glob
		// (the file pattern, or '*'), which overrides the ignore rules, so
		// its search_files also searches gitignored and hidden files; it
		// then drops what .clineignore covers, as toolgate's exclusions do.
		SearchAll: true,
	}
}

// paramAliases are the parameter names Cline's native tool specs give a
// tool in place of the registry's, by tool: with native tool calling, the
// native-next-gen variant (Claude, and the other next-gen families that are
// not GPT-5 or Gemini 3) names the path of write_to_file and
// replace_in_file "absolutePath" (Cline's tools/write_to_file.ts and
// replace_in_file.ts). Cline's WriteToFileToolHandler, which also serves
// new_rule, reads `params.path || params.absolutePath`: path wins when
// both are given and not empty.
var paramAliases = map[string]map[string]string{
	"write_to_file":   {"absolutePath": "path"},
	"replace_in_file": {"absolutePath": "path"},
	"new_rule":        {"absolutePath": "path"},
}

// mcpMark joins a server key and a tool in Cline's MCP tool names
// (shared/mcp.ts CLINE_MCP_TOOL_IDENTIFIER): "<key>0mcp0<tool>", where the
// key is the server's uid or name.
const mcpMark = "0mcp0"
