package handlers

import (
	"context"
	"errors"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/search"
)

// ListFilesInput is list_files's input.
type ListFilesInput struct {
	Path      string `json:"path" validate:"required" jsonschema:"directory to list, relative to the workspace"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"list everything below the directory, shallow entries first (default: only its direct entries)"`
}

// listFilesLimit caps one listing, as Cline does.
const listFilesLimit = search.DefaultListLimit

func newListFiles(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ListFilesInput]{
		Name: name,
		Description: "List the files and directories in a directory of the workspace. Directories end with \"/\". " +
			"Recursive listings are breadth-first, follow .gitignore and .ignore files, do not enter hidden, " +
			"dependency or build directories, and stop at 200 entries.",
		Run: func(ctx context.Context, call *tool.Call, in *ListFilesInput) (tool.Result, error) {
			return listFiles(ctx, call.Workspace, call.Texts, in, callExclude(call))
		},
		ConcurrencySafe: func(*ListFilesInput) bool { return true },
		Paths:           func(in *ListFilesInput) []string { return []string{in.Path} },
		Walks:           true,
	})
}

// listFiles lists a directory with search.Walk and answers in Cline's
// words (ListFilesToolHandler.ts, services/glob/list-files.ts and
// prompts/responses.ts formatFilesList): paths relative to the listed
// directory in Cline's order, entries .clineignore excludes shown behind
// Cline's lock, Cline's note when the limit was hit and "No files found."
// for an empty or missing directory. A one-level listing applies no
// .gitignore, as Cline's does; a recursive one follows ripgrep's rules.
func listFiles(ctx context.Context, ws *tool.Workspace, texts tool.Texts, in *ListFilesInput, exclude excludeFunc) (tool.Result, error) {
	rel, err := requireDir(ws, in.Path, "use read_file to read it")
	var te *tool.ToolError
	if errors.As(err, &te) && te.Code == api.ToolCodeNotFound {
		return tool.TextResult(texts.FileList(nil, nil, false)), nil
	}
	if err != nil {
		return tool.Result{}, err
	}
	res, err := search.Walk(ctx, ws.Root, search.WalkOptions{Path: rel, Recursive: in.Recursive, Limit: listFilesLimit,
		Exclude: exclude, ShowExcluded: true, NoIgnoreFiles: !in.Recursive, OmitSkippedDirs: true})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Result{}, fileError(rel, err)
	}
	prefix := ""
	if rel != "." {
		prefix = rel + "/"
	}
	shown := make([]string, len(res.Entries))
	for i, e := range res.Entries {
		shown[i] = strings.TrimPrefix(e, prefix)
	}
	locked := func(e string) bool { return res.Locked[prefix+e] }
	return tool.TextResult(texts.FileList(shown, locked, res.Truncated)), nil
}

// requireDir resolves a tool's directory argument and checks through the
// workspace root that it is a directory; hint says what to use for a file.
func requireDir(ws *tool.Workspace, p, hint string) (string, error) {
	rel, err := ws.Rel(p)
	if err != nil {
		return "", err
	}
	st, err := ws.Root.Stat(rel)
	if err != nil {
		return rel, fileError(rel, err)
	}
	if !st.IsDir() {
		return rel, tool.Errorf(api.ToolCodeNotDirectory, "%s is not a directory; %s.", rel, hint)
	}
	return rel, nil
}
