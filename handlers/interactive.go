package handlers

import (
	"context"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

type askFollowupIn struct {
	Question string   `json:"question" validate:"required" jsonschema:"the question to ask the user"`
	Options  []string `json:"options,omitempty" jsonschema:"answers the user may pick from"`
}

type attemptCompletionIn struct {
	Result  string `json:"result" validate:"required" jsonschema:"the result of the task, final and complete"`
	Command string `json:"command,omitempty" jsonschema:"a command that demonstrates the result"`
}

type planModeRespondIn struct {
	Response string   `json:"response" validate:"required" jsonschema:"the response to the user in plan mode"`
	Options  []string `json:"options,omitempty" jsonschema:"answers the user may pick from"`
}

// answered wraps the user's answer as Cline passes it to the model.
func answered(text string) coordinator.Result {
	return coordinator.TextResult("<answer>\n" + text + "\n</answer>")
}

// ask waits for the user's answer to an interactive call.
func ask(ctx context.Context, call *coordinator.Call, req api.InputRequest) (coordinator.Result, error) {
	text, err := call.AwaitInput(ctx, req)
	if err != nil {
		return coordinator.Result{}, err
	}
	return answered(text), nil
}

func newAskFollowupQuestion(name string, _ coordinator.ToolEnv) *coordinator.Tool {
	return coordinator.NewTool(coordinator.Spec[askFollowupIn]{
		Name:        name,
		Description: "Ask the user a question to gather information needed to complete the task. The call waits for the user's answer.",
		Run: func(ctx context.Context, call *coordinator.Call, in *askFollowupIn) (coordinator.Result, error) {
			return ask(ctx, call, api.InputRequest{Kind: name, Text: in.Question, Options: in.Options})
		},
	})
}

func newAttemptCompletion(name string, _ coordinator.ToolEnv) *coordinator.Tool {
	return coordinator.NewTool(coordinator.Spec[attemptCompletionIn]{
		Name:        name,
		Description: "Present the result of the task to the user. The call waits for the user's response: feedback means the task goes on.",
		Run: func(ctx context.Context, call *coordinator.Call, in *attemptCompletionIn) (coordinator.Result, error) {
			return ask(ctx, call, api.InputRequest{Kind: name, Text: in.Result, Command: in.Command})
		},
	})
}

func newPlanModeRespond(name string, _ coordinator.ToolEnv) *coordinator.Tool {
	return coordinator.NewTool(coordinator.Spec[planModeRespondIn]{
		Name:        name,
		Description: "Respond to the user in plan mode, to explore and plan a solution together. The call waits for the user's reply.",
		Run: func(ctx context.Context, call *coordinator.Call, in *planModeRespondIn) (coordinator.Result, error) {
			return ask(ctx, call, api.InputRequest{Kind: name, Text: in.Response, Options: in.Options})
		},
	})
}
