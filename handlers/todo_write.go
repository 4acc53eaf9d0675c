package handlers

import (
	"context"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// TodoWriteInput is todo_write's input (Claude Code's TodoWrite): the whole
// list, replacing the previous one.
type TodoWriteInput struct {
	Todos []TodoItem `json:"todos" validate:"required,dive" jsonschema:"the updated todo list"`
}

// TodoItem is one task of the list.
type TodoItem struct {
	Content    string `json:"content" validate:"required" jsonschema:"what to do, imperative (\"Run the tests\")"`
	Status     string `json:"status" validate:"required,oneof=pending in_progress completed" jsonschema:"pending, in_progress or completed"`
	ActiveForm string `json:"activeForm,omitempty" jsonschema:"the task while it runs (\"Running the tests\")"`
	ID         string `json:"id,omitempty" jsonschema:"a stable id for the task"`
}

func newTodoWrite(name string, env tool.Env) *tool.Tool {
	return tool.NewTool(tool.Spec[TodoWriteInput]{
		Name: name,
		Description: "Replace the session's todo list with the given one, to plan and track a task's steps. " +
			"Keep exactly one task in_progress while working; mark tasks completed as soon as they are done.",
		Run: func(ctx context.Context, call *tool.Call, in *TodoWriteInput) (tool.Result, error) {
			todos := make([]api.Todo, 0, len(in.Todos))
			for _, t := range in.Todos {
				todos = append(todos, api.Todo{Content: t.Content, Status: t.Status, ActiveForm: t.ActiveForm, ID: t.ID})
			}
			call.SetTodos(todos)
			return tool.TextResult("Todos have been modified successfully. Ensure that you continue to use the todo list " +
				"to track your progress. Please proceed with the current tasks if applicable"), nil
		},
		ConcurrencySafe: func(*TodoWriteInput) bool { return false },
	})
}
