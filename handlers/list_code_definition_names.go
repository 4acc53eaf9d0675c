package handlers

import (
	"context"
	"errors"
	"strings"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/codedefs"
	"github.com/toolgate/toolgate/handlers/search"
)

// ListCodeDefinitionNamesInput is list_code_definition_names's input.
type ListCodeDefinitionNamesInput struct {
	Path string `json:"path" validate:"required" jsonschema:"directory whose top-level source files are listed, relative to the workspace"`
}

func newListCodeDefinitionNames(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[ListCodeDefinitionNamesInput]{
		Name: name,
		Description: "List the definitions (functions, methods, classes, types, interfaces, ...) in the source files " +
			"at the top level of a directory of the workspace, at most 50 files, each definition shown by its first line.",
		Run: func(ctx context.Context, call *tool.Call, in *ListCodeDefinitionNamesInput) (tool.Result, error) {
			return listCodeDefinitionNames(ctx, call.Workspace, call.Texts, in, callExclude(call))
		},
		ConcurrencySafe: func(*ListCodeDefinitionNamesInput) bool { return true },
		Paths:           func(in *ListCodeDefinitionNamesInput) []string { return []string{in.Path} },
	})
}

func listCodeDefinitionNames(ctx context.Context, ws *tool.Workspace, texts tool.Texts, in *ListCodeDefinitionNamesInput, exclude excludeFunc) (tool.Result, error) {
	rel, err := requireDir(ws, in.Path, "give the directory that holds it")
	if err != nil {
		return tool.Result{}, definitionsPathError(texts, err)
	}
	counter := &exclusionCounter{exclude: exclude}
	text, err := codedefs.List(ctx, ws.Root, rel, counter.files())
	var xe *search.ExcludedError
	switch {
	case ctx.Err() != nil:
		return tool.Result{}, ctx.Err()
	case errors.As(err, &xe):
		return tool.Result{}, fileError(rel, err)
	case errors.Is(err, codedefs.ErrNoCtags):
		return tool.Result{}, tool.Errorf(api.ToolCodeUnavailable, "%v", err)
	case err != nil:
		return tool.Result{}, tool.Errorf(api.ToolCodeFailed, "%v", err)
	}
	if note := excludedNote(nil, int(counter.n.Load())); note != "" {
		text = strings.TrimRight(text, "\n") + note
	}
	return tool.TextResult(text), nil
}

// definitionsPathError words a path that is no directory, or a directory
// that is not there or cannot be read, in the dialect's words
// (tool.Texts.DefinitionsPathError). Other errors (a path outside the
// workspace) keep toolgate's words.
func definitionsPathError(texts tool.Texts, err error) error {
	var te *tool.ToolError
	if !errors.As(err, &te) {
		return err
	}
	if msg := texts.DefinitionsPathError(te.Code); msg != "" {
		return tool.Errorf(te.Code, "%s", msg)
	}
	return err
}
