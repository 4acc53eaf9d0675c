package cline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/api"
)

// The pipeline's own answers in Cline's words (Texts.MissingParam,
// IgnoredPath, CallDescription, PolicyRefusal, Rejected,
// ApprovalFeedback): Cline's system prompt teaches its models these
// shapes, so a Cline client that forwards calls to toolgate gets the texts
// it would have produced itself. Each names the function of Cline's
// apps/vscode/src/core/prompts/responses.ts (v4.0.12) it follows.

// ignoreError is formatResponse.clineIgnoreError: a path the
// .clineignore file blocks.
func ignoreError(path string) string {
	return fmt.Sprintf("Access to %s is blocked by the .clineignore file settings. You must try to continue in the task "+
		"without using this file, or ask the user to update the .clineignore file.", path)
}

// toolUseInstructionsReminder is responses.ts's toolUseInstructionsReminder,
// which Cline appends to a missing-parameter error.
const toolUseInstructionsReminder = `# Reminder: Instructions for Tool Use
Tool uses are formatted using XML-style tags. The tool name is enclosed in opening and closing tags, and each parameter is similarly enclosed within its own set of tags. Here's the structure:
<tool_name>
<parameter1_name>value1</parameter1_name>
<parameter2_name>value2</parameter2_name>
...
</tool_name>
For example:
<attempt_completion>
<result>
I have completed the task...
</result>
</attempt_completion>
Always adhere to this format for all tool uses to ensure proper parsing and execution.`

// missingParamError is formatResponse.missingToolParameterError.
func missingParamError(param string) string {
	return fmt.Sprintf("Missing value for required parameter '%s'. Please retry with complete response.\n\n%s", param, toolUseInstructionsReminder)
}

// missingText is what Cline's handler answers for a missing required
// parameter: three handlers have texts of their own, every other one
// answers missingToolParameterError (core/task/index.ts
// sayAndCreateMissingParamError).
func missingText(toolName, field, path string, mistakes int) string {
	if path == "" {
		path = "unknown"
	}
	switch {
	case toolName == "replace_in_file" && field == "diff":
		// WriteToFileToolHandler.execute: replace_in_file without a diff.
		return replaceInFileMissingDiffError(path)
	case toolName == "write_to_file" && field == "content":
		// WriteToFileToolHandler.execute: write_to_file without content.
		return writeToFileMissingContentError(path, mistakes)
	case toolName == "execute_command" && field == "command":
		// ExecuteCommandToolHandler.execute: no command.
		return executeCommandMissingCommandError
	}
	return missingParamError(field)
}

// replaceInFileMissingDiffError is formatResponse.replaceInFileMissingDiffError.
func replaceInFileMissingDiffError(relPath string) string {
	return "Failed to edit '" + relPath + "': The 'diff' parameter was empty.\n\n" +
		"The diff parameter must contain SEARCH/REPLACE blocks in this format:\n" +
		"<<<<<<< SEARCH\n" +
		"exact lines to find\n" +
		"=======\n" +
		"replacement lines\n" +
		">>>>>>> REPLACE\n\n" +
		"Rules:\n" +
		"- The SEARCH block must match existing file content exactly (including whitespace and indentation)\n" +
		"- You can include multiple SEARCH/REPLACE blocks in a single diff parameter\n" +
		"- If you're unsure of the exact content, use read_file first to see the current file"
}

// executeCommandMissingCommandError is
// formatResponse.executeCommandMissingCommandError.
const executeCommandMissingCommandError = "The 'command' parameter was empty. Provide the shell command to execute.\n\n" +
	"Example:\n" +
	"<execute_command>\n" +
	"<command>cd /path && python -m pytest tests/</command>\n" +
	"<requires_approval>false</requires_approval>\n" +
	"</execute_command>"

// writeToFileMissingContentError is
// formatResponse.writeToFileMissingContentError, whose advice grows firmer
// with the count of consecutive mistakes. toolgate does not know how full
// the model's context window is, so the context warning Cline adds past
// 50 % is never there.
func writeToFileMissingContentError(relPath string, failures int) string {
	base := "Failed to write to '" + relPath + "': The 'content' parameter was empty. This typically happens when the file content " +
		"is too large to generate in a single response, or when output token limits are reached before the content parameter is fully written."
	switch {
	case failures >= 3:
		return base + "\n\n" +
			fmt.Sprintf("CRITICAL: You have failed to write this file %d times in a row. You MUST change your approach — do NOT retry write_to_file for this file again.\n\n", failures) +
			"Required action — choose ONE of these strategies:\n" +
			"1. **Create an empty file first, then use replace_in_file** to add content in small sections (recommended)\n" +
			"2. **Break the file into multiple smaller files** if architecturally appropriate\n" +
			"3. **Write a minimal skeleton** using write_to_file (just imports, class/function signatures, no implementations), then use replace_in_file to fill in each section one at a time\n\n" +
			"Each replace_in_file call should add no more than 50-100 lines of content at a time."
	case failures >= 2:
		return base + "\n\n" +
			// Cline's ordinal: "nd" for 2, else "rd" (only 2 reaches here).
			fmt.Sprintf("This is your %dnd failed attempt. The file content is likely too large to generate in one response. You must use a different strategy:\n\n", failures) +
			"Recommended approaches:\n" +
			"1. **Use write_to_file with a minimal skeleton** (just the structure — imports, class/function signatures, no implementations), then use replace_in_file to fill in each section incrementally\n" +
			"2. **Use replace_in_file with smaller chunks** — if the file already exists, make targeted edits instead of rewriting the entire file\n" +
			"3. **Break the task into smaller steps** — write one function or section at a time\n\n" +
			"Do NOT attempt to write the full file content in a single write_to_file call again."
	}
	return base + "\n\n" +
		"Suggestions:\n" +
		"- If the file is large, try breaking down the task into smaller steps. Write a skeleton first, then fill in sections using replace_in_file.\n" +
		"- If the file already exists, prefer replace_in_file to make targeted edits instead of rewriting the entire file.\n" +
		"- Ensure the 'content' parameter contains the complete file content before closing the tool tag.\n\n" +
		toolUseInstructionsReminder
}

// toolDescription is the description Cline's handler gives a call
// (each handler's getDescription under core/task/tools/handlers/, v4.0.12),
// which Cline puts after the reason a call was not run
// (ToolExecutor.createToolRejectionMessage). A parameter the call lacks
// reads "undefined", as in Cline's template strings.
func toolDescription(name string, raw json.RawMessage) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	param := func(k string) string {
		v, ok := m[k]
		if !ok || string(v) == "null" {
			return "undefined"
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return string(v)
	}
	switch name {
	case "read_file", "list_files", "list_code_definition_names", "write_to_file", "replace_in_file", "new_rule":
		return fmt.Sprintf("[%s for '%s']", name, param("path"))
	case "search_files":
		in := ""
		if p := param("file_pattern"); p != "undefined" && p != "" {
			in = " in '" + p + "'"
		}
		return fmt.Sprintf("[%s for '%s'%s]", name, param("regex"), in)
	case "execute_command":
		return fmt.Sprintf("[%s for '%s']", name, param("command"))
	case "use_mcp_tool", "access_mcp_resource":
		return fmt.Sprintf("[%s for '%s']", name, param("server_name"))
	case "ask_followup_question":
		return fmt.Sprintf("[%s for '%s']", name, param("question"))
	case "browser_action":
		return fmt.Sprintf("[%s for '%s']", name, param("action"))
	case "web_fetch":
		return fmt.Sprintf("[%s for '%s']", name, param("url"))
	case "apply_patch":
		return "[apply_patch for patch application]"
	case "use_subagents":
		return "[subagents]"
	}
	return "[" + name + "]"
}

// planModeTools are the tools Cline's strict plan mode refuses
// (core/task/ToolExecutor.ts PLAN_MODE_RESTRICTED_TOOLS, v4.0.12).
var planModeTools = map[string]bool{"write_to_file": true, "replace_in_file": true, "new_rule": true, "apply_patch": true}

// policyRefusal words a call the policy refused as Cline's tool error
// (formatResponse.toolError). A file tool refused in plan mode reads as
// Cline's ToolExecutor refuses it, toolgate's hint in a block after it; a
// path .clineignore blocks is already in Cline's words.
func policyRefusal(name, code string, content []api.Content) []api.Content {
	if len(content) == 0 || strings.HasPrefix(content[0].Text, toolErrorHead) {
		return content // already in Cline's words (.clineignore)
	}
	if code == api.ToolCodePlanMode && planModeTools[name] {
		return append([]api.Content{api.TextContent(toolError(fmt.Sprintf(
			"Tool '%s' is not available in PLAN MODE. This tool is restricted to ACT MODE for file modifications. "+
				"Only use tools available for PLAN MODE when in that mode.", name)))}, content...)
	}
	out := slices.Clone(content)
	out[0].Text = toolError(out[0].Text)
	return out
}

// feedback is the text Cline's ToolResultUtils.pushAdditionalToolFeedback
// (core/task/tools/utils/ToolResultUtils.ts, v4.0.12) adds beside a tool's
// result when the user answered its approval with a comment.
func feedback(comment string) string {
	return "The user provided the following feedback:\n<feedback>\n" + comment + "\n</feedback>"
}

// rejected is the result of a call the user rejected in a Cline session:
// formatResponse.toolDenied, or for the file-writing tools
// WriteToFileToolHandler.execute's "The user denied this operation." with
// whether the file was left as it was or never created; then the user's
// comment as pushAdditionalToolFeedback words it, in a block of its own.
// Only a comment with more than white space is passed on.
func rejected(name string, fileExists bool, comment string) []api.Content {
	text := "The user denied this operation."
	switch name {
	case "write_to_file", "new_rule", "replace_in_file":
		note := "The file was not created."
		if fileExists {
			note = "The file was not updated, and maintains its original contents."
		}
		text += " " + note
	}
	out := []api.Content{api.TextContent(text)}
	if strings.TrimSpace(comment) != "" {
		out = append(out, api.TextContent(feedback(comment)))
	}
	return out
}
