// Package codex is the dialect of the Codex CLI (github.com/openai/codex,
// @openai/codex 0.169) with a model that gets its classic tool list
// (gpt-5.5): exec_command, write_stdin, apply_patch as a freeform tool,
// view_image, and the tools Codex serves itself (request_user_input, the
// goal tools, tool_search). Its parameters and result texts are Codex's,
// as internal/conformance/codex records them from the real CLI. Codex's
// default model sends no tools array ("code mode", a JavaScript exec
// tool): toolgate does not serve code mode.
package codex

import (
	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// Dialect is the Codex CLI's tool set. Its mappings word the results
// themselves, so handlers answer it plainly; Codex runs a turn's parallel
// calls independently, so a command that exits non-zero (grep finding
// nothing) cancels none of the others.
func Dialect() tool.Dialect {
	return tool.Dialect{Name: api.DialectCodex, PlainResults: true, IndependentCalls: true, CommandEnv: CommandEnv(), Tools: []*tool.DialectTool{
		execCommand(), writeStdin(), applyPatch(), viewImage(),
		clientTool("request_user_input", "Request user input for one to three short questions and wait for the response.", "ask_followup_question"),
		clientTool("get_goal", "Get the current goal for this thread.", "todo_write"),
		clientTool("create_goal", "Create a goal for this thread.", "todo_write"),
		clientTool("update_goal", "Update the existing goal.", "todo_write"),
		clientTool("tool_search", "Searches over deferred tool metadata.", "use_mcp_tool"),
	}}
}

// CommandEnv are the variables Codex sets in the environment of every
// command it runs for the model, on pipes and under a terminal, over the
// environment it was started with: no colours, no pager, a UTF-8 C
// locale, and CODEX_CI=1 (measured from the pinned CLI by
// internal/conformance/codex). A model's commands in a codex session see
// them too; a deployment's configured command env overrides them.
func CommandEnv() map[string]string {
	return map[string]string{
		"NO_COLOR": "1", "COLORTERM": "", "CODEX_CI": "1",
		"PAGER": "cat", "GIT_PAGER": "cat", "GH_PAGER": "cat",
		"LANG": "C.UTF-8", "LC_CTYPE": "C.UTF-8", "LC_ALL": "C.UTF-8",
	}
}

// AnyInput is the input of a tool Codex serves itself: toolgate reads
// none of it.
type AnyInput struct {
	Questions   []any  `json:"questions,omitempty" jsonschema:"request_user_input's questions"`
	Objective   string `json:"objective,omitempty" jsonschema:"create_goal's objective"`
	TokenBudget int    `json:"token_budget,omitempty" jsonschema:"create_goal's token budget"`
	Status      string `json:"status,omitempty" jsonschema:"update_goal's status"`
	Query       string `json:"query,omitempty" jsonschema:"tool_search's query"`
	Limit       int    `json:"limit,omitempty" jsonschema:"tool_search's limit"`
}

// clientTool is a tool the Codex CLI runs itself (its thread's goal, its
// user interface, its deferred tool list): a call that reaches toolgate is
// refused as not_owned, naming who serves it.
func clientTool(name, description, target string) *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[AnyInput]{
		Name:        name,
		Description: description,
		Targets:     []string{target},
		Map: func(env tool.MapEnv, in *AnyInput) (tool.Mapping, error) {
			return tool.Mapping{}, tool.Errorf(api.ToolCodeNotOwned, "Tool %s is handled by the Codex client, not by toolgate.", name)
		},
	})
}
