// Package anthropic is the dialect of the Messages API's client tools, as
// Anthropic's tool docs define them: the text editor
// (docs.anthropic.com/en/docs/agents-and-tools/tool-use/text-editor-tool,
// type text_editor_20250728) and bash (.../bash-tool, type bash_20250124),
// with the result texts of Anthropic's reference implementation
// (anthropic-quickstarts computer-use-demo tools/edit.py and
// tools/bash.py), mapped onto the registry's tools.
package anthropic

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// TextEditorInput is str_replace_based_edit_tool's input.
type TextEditorInput struct {
	Command    string `json:"command" validate:"required,oneof=view create str_replace insert" jsonschema:"view, create, str_replace or insert"`
	Path       string `json:"path" validate:"required" jsonschema:"path of the file or directory"`
	ViewRange  []int  `json:"view_range,omitempty" jsonschema:"view: [first line, last line], 1-based; -1 as last means the end"`
	FileText   string `json:"file_text,omitempty" jsonschema:"create: the content of the new file"`
	OldStr     string `json:"old_str,omitempty" jsonschema:"str_replace: the exact text to replace; it must occur exactly once"`
	NewStr     string `json:"new_str,omitempty" jsonschema:"str_replace: the text to put in its place"`
	InsertLine *int   `json:"insert_line,omitempty" jsonschema:"insert: the line after which to insert (0: at the top)"`
	InsertText string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert"`
}

// BashToolInput is the bash tool's input.
type BashToolInput struct {
	Command string `json:"command,omitempty" jsonschema:"the bash command to run"`
	Restart bool   `json:"restart,omitempty" jsonschema:"restart the shell"`
}

func anthropicEditor() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[TextEditorInput]{
		Name:        "str_replace_based_edit_tool",
		APIType:     "text_editor_20250728",
		Description: "View, create and edit files: view (a file, with an optional view_range, or a directory), create, str_replace (unique match) and insert.",
		Targets:     []string{"read_lines", "list_tree", "write_to_file", "edit_text"},
		Map:         mapTextEditor,
	})
}

func mapTextEditor(env tool.MapEnv, in *TextEditorInput) (tool.Mapping, error) {
	p := in.Path
	switch in.Command {
	case "view":
		rel, err := env.Workspace.Rel(p)
		if err != nil {
			return tool.Mapping{}, err
		}
		if st, err := env.Workspace.Root.Stat(rel); err == nil && st.IsDir() {
			if len(in.ViewRange) > 0 {
				return tool.Mapping{}, tool.Errorf(api.ToolCodeInvalid, "The `view_range` parameter is not allowed when `path` points to a directory.")
			}
			return tool.Mapping{Tool: "list_tree", Input: handlers.ListTreeInput{Path: p}, Result: func(res tool.Result, code string) tool.Result {
				if code != "" {
					return res
				}
				return tool.TextResult(fmt.Sprintf("Here's the files and directories in %s, excluding hidden items:\n%s", p, res.LastText()))
			}}, nil
		}
		read := handlers.ReadLinesInput{Path: p}
		if len(in.ViewRange) > 0 {
			if len(in.ViewRange) != 2 || in.ViewRange[0] < 1 || in.ViewRange[1] != -1 && in.ViewRange[1] < in.ViewRange[0] {
				return tool.Mapping{}, tool.Errorf(api.ToolCodeInvalid, "Invalid `view_range`: %v. It should be a list of two integers, [first, last], first >= 1 and last >= first or -1.", in.ViewRange)
			}
			read.Offset = in.ViewRange[0]
			if in.ViewRange[1] != -1 {
				read.Limit = in.ViewRange[1] - in.ViewRange[0] + 1
			}
		}
		return tool.Mapping{Tool: "read_lines", Input: read}, nil
	case "create":
		return tool.Mapping{Tool: "write_to_file", Input: handlers.WriteToFileInput{Path: p, Content: new(in.FileText)}, Result: func(res tool.Result, code string) tool.Result {
			if code != "" {
				return res
			}
			return tool.TextResult("File created successfully at: " + p)
		}}, nil
	case "str_replace":
		edit := handlers.EditTextInput{Path: p, Edits: []handlers.TextEdit{{OldString: in.OldStr, NewString: in.NewStr}}}
		return tool.Mapping{Tool: "edit_text", Input: edit, Result: func(res tool.Result, code string) tool.Result {
			switch code {
			case "":
				return tool.TextResult(fmt.Sprintf("The file %s has been edited. Here's the result of running `cat -n` on a snippet of %s:\n%s"+
					"Review the changes and make sure they are as expected. Edit the file again if necessary.", p, p, res.LastText()))
			case api.ToolCodeNoMatch:
				return tool.ErrorResult(fmt.Sprintf("No replacement was performed, old_str `%s` did not appear verbatim in %s.", in.OldStr, p))
			case api.ToolCodeMultipleMatches:
				lines := ""
				if _, rest, ok := strings.Cut(res.LastText(), "(lines "); ok {
					lines, _, _ = strings.Cut(rest, ")")
				}
				return tool.ErrorResult(fmt.Sprintf("No replacement was performed. Multiple occurrences of old_str `%s` in lines [%s]. Please ensure it is unique", in.OldStr, lines))
			}
			return res
		}}, nil
	case "insert":
		if in.InsertLine == nil {
			return tool.Mapping{}, tool.Errorf(api.ToolCodeInvalid, "Parameter `insert_line` is required for command: insert")
		}
		edit := handlers.EditTextInput{Path: p, Insert: &handlers.TextInsert{Line: *in.InsertLine, Text: in.InsertText}}
		return tool.Mapping{Tool: "edit_text", Input: edit, Result: func(res tool.Result, code string) tool.Result {
			if code != "" {
				return res
			}
			return tool.TextResult(fmt.Sprintf("The file %s has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n%s"+
				"Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.", p, res.LastText()))
		}}, nil
	}
	return tool.Mapping{}, tool.Errorf(api.ToolCodeInvalid, "Unrecognized command %s.", in.Command)
}

func anthropicBash() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[BashToolInput]{
		Name:        "bash",
		APIType:     "bash_20250124",
		Description: "Run commands in a persistent bash shell: cd and variables carry over between calls until restart.",
		Targets:     []string{"shell_session"},
		Map: func(env tool.MapEnv, in *BashToolInput) (tool.Mapping, error) {
			return tool.Mapping{Tool: "shell_session", Input: handlers.ShellSessionInput{Command: in.Command, Restart: in.Restart}}, nil
		},
	})
}

// Dialect is the Messages API's client tools. Its mappings word the
// results themselves, so handlers answer it plainly.
func Dialect() tool.Dialect {
	return tool.Dialect{Name: api.DialectAnthropic, PlainResults: true, Tools: []*tool.DialectTool{anthropicEditor(), anthropicBash()}}
}
