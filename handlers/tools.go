package handlers

import "github.com/toolgate/toolgate/coordinator/tool"

// Default is the default tool set, the "routes.go" of tools: every name a
// client may call and the factory that serves it. A factory returning nil
// marks a name the client handles itself.
func Default() []tool.Registration {
	return []tool.Registration{
		{Name: "read_file", Factory: newReadFile},
		{Name: "write_to_file", Factory: newWriteFile},
		{Name: "new_rule", Factory: newWriteFile},
		{Name: "replace_in_file", Factory: newReplaceInFile},
		{Name: "apply_patch", Factory: newApplyPatch},
		{Name: "list_files", Factory: newListFiles},
		{Name: "execute_command", Factory: newExecuteCommand},
		{Name: "search_files", Factory: newSearchFiles},
		{Name: "list_code_definition_names", Factory: newListCodeDefinitionNames},
		{Name: "web_fetch", Factory: newWebFetch},
		{Name: "browser_action", Factory: newBrowserAction},
		{Name: "use_mcp_tool", Factory: newUseMCPTool},
		{Name: "access_mcp_resource", Factory: newAccessMCPResource},
		{Name: "ask_followup_question", Factory: newAskFollowupQuestion},
		{Name: "attempt_completion", Factory: newAttemptCompletion},
		{Name: "plan_mode_respond", Factory: newPlanModeRespond},
		// Cline's tools that act on the conversation or the IDE, not on the
		// workspace (shared/tools.ts ClineDefaultTool): the client runs them.
		{Name: "focus_chain", Factory: clientSide},
		{Name: "new_task", Factory: clientSide},
		{Name: "condense", Factory: clientSide},
		{Name: "summarize_task", Factory: clientSide},
		{Name: "report_bug", Factory: clientSide},
		{Name: "act_mode_respond", Factory: clientSide},
		{Name: "load_mcp_documentation", Factory: clientSide},
		{Name: "generate_explanation", Factory: clientSide},
		// web_search goes through the Cline account's search service and
		// use_skill loads a skill the extension has discovered
		// (WebSearchToolHandler.ts, UseSkillToolHandler.ts).
		{Name: "web_search", Factory: clientSide},
		{Name: "use_skill", Factory: clientSide},

		// Tools only dialects reach (Claude Code's, the Messages API's).
		{Name: "read_lines", Factory: newReadLines, Internal: true},
		{Name: "read_output", Factory: newReadOutput, Internal: true},
		{Name: "write_file", Factory: newWriteFileReadFirst, Internal: true},
		{Name: "edit_text", Factory: newEditText, Internal: true},
		{Name: "glob_files", Factory: newGlobFiles, Internal: true},
		{Name: "grep_files", Factory: newGrepFiles, Internal: true},
		{Name: "list_tree", Factory: newListTree, Internal: true},
		{Name: "todo_write", Factory: newTodoWrite, Internal: true},
		{Name: "notebook_edit", Factory: newNotebookEdit, Internal: true},
		{Name: "shell_output", Factory: newShellOutput, Internal: true},
		{Name: "kill_shell", Factory: newKillShell, Internal: true},
		{Name: "job_stdin", Factory: newJobStdin, Internal: true},
		{Name: "shell_session", Factory: newShellSession, Internal: true},
		{Name: "patch_files", Factory: newPatchFiles, Internal: true},
	}
}

// clientSide marks a tool the client runs itself.
func clientSide(string, tool.Env) *tool.Tool { return nil }
