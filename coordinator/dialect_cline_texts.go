package coordinator

import (
	"fmt"
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
// validation: Cline's missing-parameter text when one required parameter is
// all that is missing (as Cline's handlers answer), else toolgate's
// sentences, field by field; either way wrapped as a tool error.
func invalidInputText(err error) string {
	if ie, ok := err.(*InputError); ok && len(ie.Fields) == 1 {
		for field, msg := range ie.Fields {
			if msg == "is required" && !strings.Contains(field, ".") {
				return ClineToolError(clineMissingParamError(field))
			}
		}
	}
	return ClineToolError(err.Error())
}
