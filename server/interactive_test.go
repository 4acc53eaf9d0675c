package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// newInteractiveServer is a real server with the default tools.
func newInteractiveServer(t *testing.T, cfg coordinator.Config) *flowServer {
	t.Helper()
	f := newFixture(t, fixtureOptions{config: cfg, server: Config{Token: flowToken}})
	return &flowServer{url: f.url, dir: f.dir}
}

func TestInteractiveToolsOverSSE(t *testing.T) {
	f := newInteractiveServer(t, coordinator.Config{})
	cases := []struct {
		tool     string
		input    map[string]any
		wantText string
		result   string // Cline's text blocks for the answer (core/task/tools/handlers/<Tool>Handler.ts), each ended by "\n"
	}{
		{"ask_followup_question", map[string]any{"question": "Which colour?", "options": []string{"red", "blue"}}, "Which colour?",
			"<answer>\nblue, please\n</answer>\n"},
		{"attempt_completion", map[string]any{"result": "All tests pass.", "command": "go test ./..."}, "All tests pass.",
			"The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.\n<feedback>\nblue, please\n</feedback>\n"},
		{"plan_mode_respond", map[string]any{"response": "First, read main.go."}, "First, read main.go.",
			"<user_message>\nblue, please\n</user_message>\n"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			sid := f.session(t, api.Permissions{})
			ch := f.sseMessage(t, sid, toolUse("q1", tc.tool, tc.input))
			ev := next(t, ch, api.EventToolAwaitingInput)
			if ev.Input == nil || ev.Input.Kind != tc.tool || ev.Input.Text != tc.wantText {
				t.Fatalf("awaiting_input event input = %+v, want %s asking %q", ev.Input, tc.tool, tc.wantText)
			}
			if ev.Call == nil || ev.Call.State != api.StateAwaitingInput {
				t.Fatalf("call = %+v, want state awaiting_input", ev.Call)
			}
			var calls api.CallsResponse
			f.call(t, http.MethodGet, "/v1/sessions/"+sid+"/calls?state=awaiting_input", nil, &calls)
			if len(calls.Calls) != 1 || calls.Calls[0].ToolUseID != "q1" {
				t.Fatalf("calls awaiting input = %+v, want q1", calls.Calls)
			}
			var ack api.AnswerResponse
			if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/q1/answer", api.AnswerRequest{Text: "blue, please"}, &ack); code != http.StatusOK {
				t.Fatalf("answer: got %d, want 200", code)
			}
			fin := next(t, ch, api.EventToolFinished)
			if got := texts(*fin.Result); got != tc.result || fin.Result.IsError {
				t.Errorf("result = %q (error %v), want the answer", got, fin.Result.IsError)
			}
		})
	}
}

func TestAnswerThroughBlockingAPI(t *testing.T) {
	f := newInteractiveServer(t, coordinator.Config{})
	sid := f.session(t, api.Permissions{})
	done := make(chan api.MessageResponse, 1)
	go func() {
		var resp api.MessageResponse
		msg := assistant(toolUse("b1", "ask_followup_question", map[string]any{"question": "Proceed?"}))
		f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/messages", msg, &resp)
		done <- resp
	}()
	waitFor(t, func() bool {
		var calls api.CallsResponse
		f.call(t, http.MethodGet, "/v1/sessions/"+sid+"/calls?state=awaiting_input", nil, &calls)
		return len(calls.Calls) == 1
	})
	t.Run("empty text is refused", func(t *testing.T) {
		if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/b1/answer", map[string]string{"text": ""}, nil); code != http.StatusBadRequest {
			t.Errorf("got %d, want 400", code)
		}
	})
	t.Run("unknown call is 404", func(t *testing.T) {
		if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/nope/answer", api.AnswerRequest{Text: "x"}, nil); code != http.StatusNotFound {
			t.Errorf("got %d, want 404", code)
		}
	})
	f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/b1/answer", api.AnswerRequest{Text: "yes"}, nil)
	resp := receive(t, done)
	if len(resp.Message.Content) != 1 || !strings.Contains(texts(resp.Message.Content[0]), "<answer>\nyes\n</answer>") {
		t.Fatalf("message response = %+v, want the answer", resp)
	}
	t.Run("a finished call is 409", func(t *testing.T) {
		if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/b1/answer", api.AnswerRequest{Text: "again"}, nil); code != http.StatusConflict {
			t.Errorf("got %d, want 409", code)
		}
	})
}

func TestInteractiveEnds(t *testing.T) {
	t.Run("interrupt cancels the wait", func(t *testing.T) {
		f := newInteractiveServer(t, coordinator.Config{})
		sid := f.session(t, api.Permissions{})
		ch := f.sseMessage(t, sid, toolUse("i1", "attempt_completion", map[string]any{"result": "done"}))
		next(t, ch, api.EventToolAwaitingInput)
		f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/interrupt", nil, nil)
		fin := next(t, ch, api.EventToolFinished)
		if fin.Call.Status != api.StatusCancelled {
			t.Errorf("status = %s, want cancelled", fin.Call.Status)
		}
	})
	t.Run("the input timeout ends the call", func(t *testing.T) {
		cfg := coordinator.Config{AgentConfig: coordinator.AgentConfig{InputTimeout: coordinator.Duration(50 * time.Millisecond)}}
		f := newInteractiveServer(t, cfg)
		sid := f.session(t, api.Permissions{})
		ch := f.sseMessage(t, sid, toolUse("t1", "ask_followup_question", map[string]any{"question": "Still there?"}))
		fin := next(t, ch, api.EventToolFinished)
		if fin.Call.Error == nil || fin.Call.Error.Code != api.ToolCodeNoAnswer {
			t.Errorf("call = %+v, want error code %s", fin.Call, api.ToolCodeNoAnswer)
		}
	})
}

// TestAcceptCompletion: a completion the user accepts without feedback
// answers Cline's "[attempt_completion] Result: Done"
// (AttemptCompletionHandler.ts, v4.0.12, yesButtonClicked); only
// attempt_completion's request may be accepted, and not together with text.
func TestAcceptCompletion(t *testing.T) {
	f := newInteractiveServer(t, coordinator.Config{})
	sid := f.session(t, api.Permissions{})
	done := make(chan api.MessageResponse, 1)
	go func() {
		var resp api.MessageResponse
		msg := assistant(
			toolUse("q1", "ask_followup_question", map[string]any{"question": "Proceed?"}),
			toolUse("c1", "attempt_completion", map[string]any{"result": "All done."}))
		f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/messages", msg, &resp)
		done <- resp
	}()
	awaiting := func(id string) {
		t.Helper()
		waitFor(t, func() bool {
			var calls api.CallsResponse
			f.call(t, http.MethodGet, "/v1/sessions/"+sid+"/calls?state=awaiting_input", nil, &calls)
			return len(calls.Calls) == 1 && calls.Calls[0].ToolUseID == id
		})
	}
	awaiting("q1")
	if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/q1/answer", api.AnswerRequest{Accept: true}, nil); code != http.StatusBadRequest {
		t.Errorf("accepting a question: got %d, want 400", code)
	}
	f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/q1/answer", api.AnswerRequest{Text: "go"}, nil)
	awaiting("c1")
	if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/c1/answer", map[string]any{"text": "x", "accept": true}, nil); code != http.StatusBadRequest {
		t.Errorf("text and accept together: got %d, want 400", code)
	}
	if code := f.call(t, http.MethodPost, "/v1/sessions/"+sid+"/calls/c1/answer", api.AnswerRequest{Accept: true}, nil); code != http.StatusOK {
		t.Fatalf("accept: got %d, want 200", code)
	}
	resp := receive(t, done)
	if len(resp.Message.Content) != 2 || texts(resp.Message.Content[1]) != "[attempt_completion] Result: Done\n" {
		t.Fatalf("message response = %+v, want Cline's done text for c1", resp.Message.Content)
	}
}
