package coordinator

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// Texts the model reads when a call fails, in Cline's words: Cline's
// system prompt teaches its models these shapes, so a Cline client that
// forwards calls to toolgate gets the texts it would have produced itself.
// Each names the function of Cline's apps/vscode/src/core/prompts/
// responses.ts (v4.0.12) it follows.

// ClineToolError wraps a failure as Cline's formatResponse.toolError.
var ClineToolError = tool.ClineToolError

// clineIgnoreError is formatResponse.clineIgnoreError: a path the
// .clineignore file blocks.
func clineIgnoreError(path string) string {
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

// clineMissingParamError is formatResponse.missingToolParameterError.
func clineMissingParamError(param string) string {
	return fmt.Sprintf("Missing value for required parameter '%s'. Please retry with complete response.\n\n%s", param, toolUseInstructionsReminder)
}

// invalidInputText is what the model reads for an input that failed
// validation in a Cline session. When required parameters are all that is
// missing, it is the text Cline's handler answers for the first of them in
// the order the handler checks them (the order of the input's fields):
// formatResponse.missingToolParameterError, or one of the texts some
// handlers have of their own (clineMissingText). Otherwise it is
// toolgate's sentences, field by field (Cline checks no types). Either way
// it is wrapped as a tool error. mistakes is the session's count of
// consecutive mistakes, this one included (Cline's
// taskState.consecutiveMistakeCount).
func invalidInputText(t *tool.Tool, raw json.RawMessage, err error, mistakes int) string {
	if field := firstMissing(t, err); field != "" {
		return ClineToolError(clineMissingText(t.Name, field, stringParam(raw, "path"), mistakes))
	}
	return ClineToolError(err.Error())
}

// firstMissing is the required parameter Cline's handler would report
// first when every problem of err is a missing top-level parameter, else "".
func firstMissing(t *tool.Tool, err error) string {
	ie, ok := err.(*InputError)
	if !ok || len(ie.Fields) == 0 {
		return ""
	}
	for field, msg := range ie.Fields {
		if msg != "is required" || strings.Contains(field, ".") {
			return ""
		}
	}
	for _, name := range inputFieldOrder(t) {
		if _, ok := ie.Fields[name]; ok {
			return name
		}
	}
	return ""
}

// inputFieldOrder lists the JSON names of a tool's input fields in their
// declared order, which follows the order of Cline's parameter checks.
func inputFieldOrder(t *tool.Tool) []string {
	typ := reflect.TypeOf(t.NewInput()).Elem()
	var names []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// stringParam is a string parameter of a raw input, "" when absent.
func stringParam(raw json.RawMessage, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m[name], &s)
	return s
}

// clineMissingText is what Cline's handler answers for a missing required
// parameter: three handlers have texts of their own, every other one
// answers missingToolParameterError (core/task/index.ts
// sayAndCreateMissingParamError).
func clineMissingText(toolName, field, path string, mistakes int) string {
	if path == "" {
		path = "unknown"
	}
	switch {
	case toolName == "replace_in_file" && field == "diff":
		// WriteToFileToolHandler.execute: replace_in_file without a diff.
		return clineReplaceInFileMissingDiffError(path)
	case toolName == "write_to_file" && field == "content":
		// WriteToFileToolHandler.execute: write_to_file without content.
		return clineWriteToFileMissingContentError(path, mistakes)
	case toolName == "execute_command" && field == "command":
		// ExecuteCommandToolHandler.execute: no command.
		return clineExecuteCommandMissingCommandError
	}
	return clineMissingParamError(field)
}

// clineReplaceInFileMissingDiffError is formatResponse.replaceInFileMissingDiffError.
func clineReplaceInFileMissingDiffError(relPath string) string {
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

// clineExecuteCommandMissingCommandError is
// formatResponse.executeCommandMissingCommandError.
const clineExecuteCommandMissingCommandError = "The 'command' parameter was empty. Provide the shell command to execute.\n\n" +
	"Example:\n" +
	"<execute_command>\n" +
	"<command>cd /path && python -m pytest tests/</command>\n" +
	"<requires_approval>false</requires_approval>\n" +
	"</execute_command>"

// clineWriteToFileMissingContentError is
// formatResponse.writeToFileMissingContentError, whose advice grows firmer
// with the count of consecutive mistakes. toolgate does not know how full
// the model's context window is, so the context warning Cline adds past
// 50 % is never there.
func clineWriteToFileMissingContentError(relPath string, failures int) string {
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

// clineToolDescription is the description Cline's handler gives a call
// (each handler's getDescription under core/task/tools/handlers/, v4.0.12),
// which Cline puts after the reason a call was not run
// (ToolExecutor.createToolRejectionMessage). A parameter the call lacks
// reads "undefined", as in Cline's template strings.
func clineToolDescription(name string, raw json.RawMessage) string {
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
	case UseSubagents:
		return "[subagents]"
	}
	return "[" + name + "]"
}
