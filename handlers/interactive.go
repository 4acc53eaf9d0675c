package handlers

import (
	"context"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
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
func answered(text string) tool.Result {
	return tool.TextResult("<answer>\n" + text + "\n</answer>")
}

// interactive is a tool that puts its request before the user and waits
// for the answer (state awaiting_input).
func interactive[In any](description string, request func(name string, in *In) api.InputRequest) tool.Factory {
	return func(name string, _ tool.Env) *tool.Tool {
		return tool.NewTool(tool.Spec[In]{
			Name:        name,
			Description: description,
			Run: func(ctx context.Context, call *tool.Call, in *In) (tool.Result, error) {
				text, err := call.AwaitInput(ctx, request(name, in))
				if err != nil {
					return tool.Result{}, err
				}
				return answered(text), nil
			},
		})
	}
}

var (
	newAskFollowupQuestion = interactive("Ask the user a question to gather information needed to complete the task. The call waits for the user's answer.",
		func(name string, in *askFollowupIn) api.InputRequest {
			return api.InputRequest{Kind: name, Text: in.Question, Options: in.Options}
		})
	newAttemptCompletion = interactive("Present the result of the task to the user. The call waits for the user's response: feedback means the task goes on.",
		func(name string, in *attemptCompletionIn) api.InputRequest {
			return api.InputRequest{Kind: name, Text: in.Result, Command: in.Command}
		})
	newPlanModeRespond = interactive("Respond to the user in plan mode, to explore and plan a solution together. The call waits for the user's reply.",
		func(name string, in *planModeRespondIn) api.InputRequest {
			return api.InputRequest{Kind: name, Text: in.Response, Options: in.Options}
		})
)
