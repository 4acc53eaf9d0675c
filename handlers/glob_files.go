package handlers

import (
	"context"
	"path/filepath"
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
		Description: "Find files by glob pattern (\"**/*.go\", \"src/**/*.ts\"), newest first, at most 100. " +
			"Files are chosen as ripgrep chooses them: .gitignore rules apply and hidden files are skipped.",
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
	res, err := search.Files(ctx, call.Workspace.Root, search.FilesOptions{
		Path: rel, Exclude: callExclude(call),
		Keep: func(p string) bool { return match(strings.TrimPrefix(p, prefix)) },
	})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, fileError(rel, err)
	}
	files := res.Files
	// Newest first; equal times keep path order, so answers are stable.
	slices.SortStableFunc(files, func(a, b search.FoundFile) int { return b.ModTime.Compare(a.ModTime) })
	if len(files) == 0 {
		return tool.TextResult("No files found" + excludedNote(res.Excluded)), nil
	}
	var b strings.Builder
	for i, f := range files {
		if i == globFilesLimit {
			b.WriteString("(Results are truncated. Consider using a more specific path or pattern.)\n")
			break
		}
		b.WriteString(filepath.Join(call.Workspace.Dir, filepath.FromSlash(f.Path)) + "\n")
	}
	return tool.TextResult(strings.TrimSuffix(b.String(), "\n") + excludedNote(res.Excluded)), nil
}
