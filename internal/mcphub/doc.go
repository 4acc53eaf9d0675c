// Package mcphub keeps toolgate's connections to the MCP servers named in
// a settings file (Cline's format): it connects in the background,
// reconnects with backoff when a server dies, follows each server's tool
// list and forwards calls, progress and cancellation.
//
// Like every package under internal/, it imports no layer of toolgate:
// it answers in the MCP SDK's types and its own (Status, whose fields are
// api.MCPServer's), and the layers adapt them. Tools reach it through the
// tool contract's MCP interface; the coordinator holds the Hub, lists its
// tools and converts its Status for the wire; handlers/mcpcontent words
// its results as tool_result blocks.
package mcphub
