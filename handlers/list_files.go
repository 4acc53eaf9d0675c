package handlers

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/coordinator"
)

// ListFilesInput is list_files's input.
type ListFilesInput struct {
	Path      string `json:"path" validate:"required" jsonschema:"directory to list, relative to the workspace"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"list everything below the directory, shallow entries first (default: only its direct entries)"`
}

// listFilesLimit caps one listing, as Cline does.
const listFilesLimit = 200

// skippedDirs are directories a recursive listing does not enter: version
// control and the usual dependency and build output, as Cline skips them.
var skippedDirs = map[string]bool{
	".git": true, "node_modules": true, "__pycache__": true, "env": true, "venv": true,
	"dist": true, "out": true, "bundle": true, "vendor": true, "tmp": true, "temp": true,
	"deps": true, "pkg": true, "Pods": true, "target": true, "build": true,
}

func newListFiles(name string, env coordinator.ToolEnv) *coordinator.Tool {
	return coordinator.NewTool(coordinator.Spec[ListFilesInput]{
		Name: name,
		Description: "List the files and directories in a directory of the workspace. Directories end with \"/\". " +
			"Recursive listings are breadth-first, skip .git and dependency/build directories, and stop at 200 entries.",
		Run:             listFiles,
		ConcurrencySafe: func(*ListFilesInput) bool { return true },
		Paths:           func(in *ListFilesInput) []string { return []string{in.Path} },
	})
}

func listFiles(ctx context.Context, call *coordinator.Call, in *ListFilesInput) (coordinator.Result, error) {
	rel, err := call.Workspace.Rel(in.Path)
	if err != nil {
		return coordinator.Result{}, err
	}
	fsys := call.Workspace.Root.FS()
	if st, err := fs.Stat(fsys, rel); err != nil {
		return coordinator.Result{}, fileError(rel, err)
	} else if !st.IsDir() {
		return coordinator.Result{}, coordinator.Errorf("not_directory", "%s is not a directory; use read_file to read it.", rel)
	}
	entries, truncated, err := walkBreadthFirst(ctx, fsys, rel, in.Recursive, listFilesLimit)
	if err != nil {
		return coordinator.Result{}, err
	}
	if len(entries) == 0 {
		return coordinator.TextResult("No files found."), nil
	}
	text := strings.Join(entries, "\n")
	if truncated {
		text += fmt.Sprintf("\n\n(File list truncated at %d entries. Use list_files on specific subdirectories to explore further.)", listFilesLimit)
	}
	return coordinator.TextResult(text), nil
}

// walkBreadthFirst lists dir level by level, sorted within a level, so a
// capped listing shows the shallow structure first. Paths are relative to
// dir; directories end with "/".
func walkBreadthFirst(ctx context.Context, fsys fs.FS, dir string, recursive bool, limit int) ([]string, bool, error) {
	var out []string
	queue := []string{dir}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		cur := queue[0]
		queue = queue[1:]
		entries, err := fs.ReadDir(fsys, cur)
		if err != nil {
			if cur == dir {
				return nil, false, fileError(dir, err)
			}
			continue // an unreadable subdirectory is skipped, not fatal
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			p := path.Join(cur, e.Name())
			shown := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
			if dir == "." {
				shown = p
			}
			if e.IsDir() {
				if e.Name() == ".git" || recursive && skippedDirs[e.Name()] {
					continue
				}
				shown += "/"
				if recursive {
					queue = append(queue, p)
				}
			}
			if len(out) == limit {
				return out, true, nil
			}
			out = append(out, shown)
		}
	}
	return out, false, nil
}
