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
	// Cline's escape hatch for a model that realizes mid-answer it must
	// explore first (PlanModeRespondHandler.ts).
	NeedsMoreExploration bool `json:"needs_more_exploration,omitempty" jsonschema:"true to go on exploring with tools instead of waiting for the user's reply"`
}

// The user's answer as Cline passes it to the model, by tool
// (apps/vscode/src/core/task/tools/handlers/, v4.0.12).

// answered is AskFollowupQuestionToolHandler's "<answer>" text.
func answered(text string) tool.Result {
	return tool.TextResult("<answer>\n" + text + "\n</answer>")
}

// completionAnswered is AttemptCompletionHandler's answer to feedback:
// Cline's request to go on, then the feedback. An accepted completion (the
// user's "done", Cline's yesButtonClicked) is its "[attempt_completion]
// Result: Done".
func completionAnswered(text string) tool.Result {
	if text == "" {
		return tool.TextResult("[attempt_completion] Result: Done")
	}
	return tool.Result{Content: []api.Content{
		api.TextContent("The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again."),
		api.TextContent("<feedback>\n" + text + "\n</feedback>"),
	}}
}

// planAnswered is PlanModeRespondHandler's "<user_message>" text, or its
// go-on note when the model asked to explore further (no text).
func planAnswered(text string) tool.Result {
	if text == "" {
		return tool.TextResult("[You have indicated that you need more exploration. Proceed with calling tools to continue the planning process.]")
	}
	return tool.TextResult("<user_message>\n" + text + "\n</user_message>")
}

// interactive is a tool that puts its request before the user and waits
// for the answer (state awaiting_input); format turns the answer into the
// result.
// A nil request from request means the call answers at once, with
// format("") and no question put to the user.
func interactive[In any](description string, format func(string) tool.Result, request func(name string, in *In) *api.InputRequest) tool.Factory {
	return func(name string, _ tool.Env) *tool.Tool {
		return tool.NewTool(tool.Spec[In]{
			Name:        name,
			Description: description,
			Run: func(ctx context.Context, call *tool.Call, in *In) (tool.Result, error) {
				req := request(name, in)
				if req == nil {
					return format(""), nil
				}
				answer, err := call.AwaitInput(ctx, *req)
				if err != nil {
					return tool.Result{}, err
				}
				// An accepted request (only attempt_completion's may be)
				// comes to format as no text.
				return format(answer.Text), nil
			},
		})
	}
}

var (
	newAskFollowupQuestion = interactive("Ask the user a question to gather information needed to complete the task. The call waits for the user's answer.", answered,
		func(name string, in *askFollowupIn) *api.InputRequest {
			return &api.InputRequest{Kind: name, Text: in.Question, Options: in.Options}
		})
	newAttemptCompletion = interactive("Present the result of the task to the user. The call waits for the user's response: feedback means the task goes on; acceptance, that it is done.", completionAnswered,
		func(name string, in *attemptCompletionIn) *api.InputRequest {
			return &api.InputRequest{Kind: name, Text: in.Result, Command: in.Command, Acceptable: true}
		})
	newPlanModeRespond = interactive("Respond to the user in plan mode, to explore and plan a solution together. The call waits for the user's reply.", planAnswered,
		func(name string, in *planModeRespondIn) *api.InputRequest {
			if in.NeedsMoreExploration {
				return nil
			}
			return &api.InputRequest{Kind: name, Text: in.Response, Options: in.Options}
		})
)
