// Package tool is the contract between the coordinator and the tools: what
// a tool declares (Spec, built into a Tool by NewTool), what its handler
// sees of a call (Call: the workspace, the session's file memory, partial
// output, input requests, the ignore rules in force) and what it returns
// (Result, or an error; a *ToolError carries a stable code). A factory
// (Factory, listed in a Registration) builds a tool from the shared Env.
//
// Handlers import this package, not the coordinator, so a tool compiles
// against the few types it uses. The coordinator fills in a Call's
// Runtime and runs the pipeline around Tool.Run. Everyone names these
// types here, as tool.X: the coordinator re-exports none of them. The
// package holds no state of its own and nothing concrete: it imports api
// and the few internal/ libraries whose types it names
// (TestImportDirections). What a tool needs of a concrete part it sees
// through a small interface the coordinator fills in: the session's file
// memory (Files, coordinator/filememory), its background jobs (Jobs,
// coordinator/jobs) and the MCP hub (MCP).
//
// Declaring a tool:
//
//	type EchoInput struct {
//		Text string `json:"text" validate:"required" jsonschema:"the text to echo"`
//	}
//
//	func newEcho(name string, env tool.Env) *tool.Tool {
//		return tool.NewTool(tool.Spec[EchoInput]{
//			Name: name, Description: "Echo a text.",
//			Run: func(ctx context.Context, call *tool.Call, in *EchoInput) (tool.Result, error) {
//				return tool.TextResult(in.Text), nil
//			},
//		})
//	}
//
// and listing tool.Registration{Name: "echo", Factory: newEcho} in
// handlers.Default. The input struct is the tool's one declaration of its
// input: the published JSON Schema (required list, bounds, enums) is
// derived from its validate tags (schema_rules.go), and the pipeline
// checks calls against the same tags. A parameter that must be sent but
// may be false or empty is a pointer with validate:"required".
package tool
