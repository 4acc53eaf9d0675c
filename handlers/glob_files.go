package handlers

import (
	"context"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/search"
)

// GlobFilesInput is glob_files's input (Claude Code's Glob).
type GlobFilesInput struct {
	Pattern string `json:"pattern" validate:"required" jsonschema:"glob matched against paths relative to path: * and ? within a name, **/ across directories, {a,b}"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search (default: the workspace)"`
}

// globFilesLimit caps one answer, as Claude Code's Glob does.
const globFilesLimit = 100

func newGlobFiles(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[GlobFilesInput]{
		Name: name,
		Description: "Find files by glob pattern (\"**/*.go\", \"src/**/*.ts\"; a pattern without a slash matches names at any depth), " +
			"oldest first, at most 100, as paths relative to the workspace. Ignored and hidden files are listed too, as Claude Code's Glob lists them.",
		Run:             globFiles,
		ConcurrencySafe: func(*GlobFilesInput) bool { return true },
		Paths:           func(in *GlobFilesInput) []string { return []string{orDot(in.Path)} },
	})
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func globFiles(ctx context.Context, call *tool.Call, in *GlobFilesInput) (tool.Result, error) {
	rel, err := requireDir(call.Workspace, orDot(in.Path), "Glob searches directories")
	if err != nil {
		return tool.Result{}, err
	}
	match, err := search.CompilePathGlob(in.Pattern)
	if err != nil {
		return tool.Result{}, tool.Errorf(api.ToolCodeInvalidFilePattern, "%v", err)
	}
	prefix := ""
	if rel != "." {
		prefix = rel + "/"
	}
	// ripgrep's --glob: a pattern without a slash matches a file's name.
	basename := !strings.Contains(in.Pattern, "/")
	res, err := search.Files(ctx, call.Workspace.Root, search.FilesOptions{
		Path: rel, Exclude: callExclude(call), All: true,
		Keep: func(p string) bool {
			p = strings.TrimPrefix(p, prefix)
			if basename {
				p = p[strings.LastIndexByte(p, '/')+1:]
			}
			return match(p)
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, fileError(rel, err)
	}
	files := res.Files
	// Oldest first, as Claude Code 2.1 lists them (ripgrep
	// --sort=modified); equal times keep path order, so answers are stable.
	slices.SortStableFunc(files, func(a, b search.FoundFile) int { return a.ModTime.Compare(b.ModTime) })
	if len(files) == 0 {
		return tool.TextResult("No files found" + excludedNote(call, res.Excluded)), nil
	}
	var b strings.Builder
	for i, f := range files {
		if i == globFilesLimit {
			b.WriteString("(Results are truncated. Consider using a more specific path or pattern.)\n")
			break
		}
		b.WriteString(f.Path + "\n")
	}
	return tool.TextResult(strings.TrimSuffix(b.String(), "\n") + excludedNote(call, res.Excluded)), nil
}
