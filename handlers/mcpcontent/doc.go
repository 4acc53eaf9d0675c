// Package mcpcontent words what an MCP server answers as tool_result
// blocks: text stays text, images pass as the Messages API takes them
// (converted to PNG or given as SVG source where it would refuse them),
// and what a tool_result cannot carry becomes a note. use_mcp_tool and
// access_mcp_resource use it; the hub itself (internal/mcphub) only
// forwards the servers' own results.
package mcpcontent
