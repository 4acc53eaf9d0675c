package handlers

import (
	"context"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/search"
)

// ListTreeInput is list_tree's input (Claude Code's LS).
type ListTreeInput struct {
	Path   string   `json:"path" validate:"required" jsonschema:"directory to list"`
	Ignore []string `json:"ignore,omitempty" jsonschema:"glob patterns of names or paths to leave out"`
}

// listTreeLimit caps one listing, as Claude Code's LS does.
const listTreeLimit = 1000

func newListTree(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ListTreeInput]{
		Name: name,
		Description: "List a directory as a tree of absolute paths, following .gitignore and skipping hidden, dependency " +
			"and build directories; ignore takes further globs to leave out. At most 1000 entries.",
		Run: func(ctx context.Context, call *tool.Call, in *ListTreeInput) (tool.Result, error) {
			return listTree(ctx, call, in)
		},
		ConcurrencySafe: func(*ListTreeInput) bool { return true },
		Paths:           func(in *ListTreeInput) []string { return []string{in.Path} },
	})
}

func listTree(ctx context.Context, call *tool.Call, in *ListTreeInput) (tool.Result, error) {
	rel, err := requireDir(call.Workspace, in.Path, "use Read to read a file")
	if err != nil {
		return tool.Result{}, err
	}
	var ignores []func(string) bool
	for _, p := range in.Ignore {
		m, err := search.CompilePathGlob(p)
		if err != nil {
			return tool.Result{}, tool.Errorf(api.ToolCodeInvalidFilePattern, "%v", err)
		}
		ignores = append(ignores, m)
	}
	// Only what the ignore rules hide is counted in the note; what the
	// model asked to leave out is simply left out.
	base := &exclusionCounter{exclude: callExclude(call)}
	exclude := func(p string, isDir bool) bool {
		for _, m := range ignores {
			if m(path.Base(p)) || m(p) {
				return true
			}
		}
		if base.exclude != nil && base.exclude(p, isDir) {
			base.n.Add(1)
			return true
		}
		return false
	}
	res, err := search.Walk(ctx, call.Workspace.Root, search.WalkOptions{Path: rel, Recursive: true, Limit: listTreeLimit, Exclude: exclude})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, fileError(rel, err)
	}
	res.Excluded = int(base.n.Load())
	return tool.TextResult(renderTree(call.Workspace.Dir, rel, res) + excludedNote(call, res.Excluded)), nil
}

// renderTree draws the listing as Claude Code's LS does: the directory's
// absolute path, then each entry indented by depth, directories first
// ending in "/".
func renderTree(wsDir, rel string, res *search.WalkResult) string {
	entries := slices.Clone(res.Entries)
	// By path components, so a directory's entries follow it directly.
	slices.SortFunc(entries, func(a, b string) int {
		return slices.Compare(strings.Split(strings.TrimSuffix(a, "/"), "/"), strings.Split(strings.TrimSuffix(b, "/"), "/"))
	})
	root := filepath.Join(wsDir, filepath.FromSlash(rel))
	var b strings.Builder
	b.WriteString("- " + root + string(filepath.Separator) + "\n")
	prefix := ""
	if rel != "." {
		prefix = rel + "/"
	}
	for _, e := range entries {
		inner := strings.TrimPrefix(e, prefix)
		depth := strings.Count(strings.TrimSuffix(inner, "/"), "/")
		name := path.Base(strings.TrimSuffix(inner, "/"))
		if strings.HasSuffix(inner, "/") {
			name += "/"
		}
		b.WriteString(strings.Repeat("  ", depth+1) + "- " + name + "\n")
	}
	if res.Truncated {
		b.WriteString("\nThere are more than 1000 files in the directory; use a more specific path, Glob or Grep to see the rest.\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
