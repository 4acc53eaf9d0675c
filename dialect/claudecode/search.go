package claudecode

import (
	"path/filepath"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// ClaudeGrepInput is Claude Code's Grep, with its parameter names and
// types: its counts are JSON Schema numbers.
type ClaudeGrepInput struct {
	Pattern    string  `json:"pattern" validate:"required" jsonschema:"The regular expression pattern to search for in file contents"`
	Path       string  `json:"path,omitempty" jsonschema:"File or directory to search in. Defaults to the current working directory."`
	Glob       string  `json:"glob,omitempty" jsonschema:"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\")"`
	OutputMode string  `json:"output_mode,omitempty" validate:"omitempty,oneof=content files_with_matches count" jsonschema:"content shows matching lines, files_with_matches (default) file paths, count match counts"`
	Before     float64 `json:"-B,omitempty" validate:"min=0,max=1000" jsonschema:"Lines to show before each match (rg -B); content mode only"`
	After      float64 `json:"-A,omitempty" validate:"min=0,max=1000" jsonschema:"Lines to show after each match (rg -A); content mode only"`
	Context    float64 `json:"-C,omitempty" validate:"min=0,max=1000" jsonschema:"Lines to show before and after each match (rg -C); content mode only"`
	ContextToo float64 `json:"context,omitempty" validate:"min=0,max=1000" jsonschema:"Another name for -C"`
	LineNumber *bool   `json:"-n,omitempty" jsonschema:"Show line numbers (rg -n); content mode only, default true"`
	IgnoreCase bool    `json:"-i,omitempty" jsonschema:"Case insensitive search (rg -i)"`
	Only       bool    `json:"-o,omitempty" jsonschema:"Show only the matched parts of lines (rg -o); content mode only"`
	Type       string  `json:"type,omitempty" jsonschema:"File type to search (rg --type), e.g. js, py, rust, go"`
	HeadLimit  float64 `json:"head_limit,omitempty" validate:"min=0" jsonschema:"Keep only the first N lines or entries of the output"`
	Offset     float64 `json:"offset,omitempty" validate:"min=0" jsonschema:"Skip the first N lines or entries before head_limit"`
	Multiline  bool    `json:"multiline,omitempty" jsonschema:"Let patterns span lines and . match newlines (rg -U --multiline-dotall)"`
}

func claudeGlob() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[GlobInput]{
		Name: "Glob",
		Description: "Fast file pattern matching: glob patterns like \"**/*.js\" or \"src/**/*.ts\". " +
			"Returns matching file paths sorted by modification time, oldest first, at most 100.",
		Targets: []string{"glob_files"},
		Map: func(env tool.MapEnv, in *GlobInput) (tool.Mapping, error) {
			return tool.Mapping{Tool: "glob_files", Input: handlers.GlobFilesInput(*in), Result: missingPath(env, in.Path, "Directory")}, nil
		},
	})
}

func claudeGrep() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[ClaudeGrepInput]{
		Name: "Grep",
		Description: "A powerful search tool built on ripgrep. Supports full regex syntax; filter files with glob or type. " +
			"Output modes: \"content\" shows matching lines (with -A/-B/-C context and -n line numbers), \"files_with_matches\" shows only file paths (default), " +
			"\"count\" shows match counts. multiline: true lets patterns span lines. offset and head_limit page through the output.",
		Targets: []string{"grep_files"},
		Map: func(env tool.MapEnv, in *ClaudeGrepInput) (tool.Mapping, error) {
			context := in.Context
			if in.ContextToo > 0 {
				context = in.ContextToo
			}
			g := handlers.GrepInput{
				Pattern: in.Pattern, Path: in.Path, Glob: in.Glob, Type: in.Type, OutputMode: in.OutputMode,
				IgnoreCase: in.IgnoreCase, LineNumber: in.LineNumber, Multiline: in.Multiline, Only: in.Only,
				After: int(in.After), Before: int(in.Before), Context: int(context),
				HeadLimit: int(in.HeadLimit), Offset: int(in.Offset),
			}
			missing := missingPath(env, in.Path, "Path")
			return tool.Mapping{Tool: "grep_files", Input: g, Result: func(res tool.Result, code string) tool.Result {
				if code == api.ToolCodeInvalidRegex {
					// Claude Code reads nothing from ripgrep's refusal.
					return tool.TextResult("No matches found")
				}
				return missing(res, code)
			}}, nil
		},
	})
}

// missingPath words a search of a path that does not exist as Claude
// Code's input check does: what ("Path", "Directory"), the path made
// absolute, and the working directory.
func missingPath(env tool.MapEnv, p, what string) func(tool.Result, string) tool.Result {
	return func(res tool.Result, code string) tool.Result {
		if code != api.ToolCodeNotFound {
			return res
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.Workspace.Dir, p)
		}
		return toolUseError(what + " does not exist: " + p + "." + cwdNote(env))
	}
}
