package tool

// ClineToolError wraps a failure as Cline's formatResponse.toolError
// (apps/vscode/src/core/prompts/responses.ts, v4.0.12): the text a model
// taught by Cline's system prompt reads when a tool failed. The
// coordinator wraps every handler error with it; a handler that builds its
// own failure text (replace_in_file) uses it too.
func ClineToolError(msg string) string {
	return "The tool execution failed with the following error:\n<error>\n" + msg + "\n</error>"
}
