package coordinator_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// typedInput has one parameter of every JSON type a Cline XML call may
// carry as a string (Cline's parse-assistant-message.ts keeps every
// parameter as a string).
type typedInput struct {
	Path      string            `json:"path" validate:"required" jsonschema:"a path"`
	Recursive bool              `json:"recursive,omitempty" jsonschema:"a flag"`
	Line      int               `json:"line,omitempty" validate:"omitempty,min=1" jsonschema:"a line"`
	Ratio     float64           `json:"ratio,omitempty" jsonschema:"a number"`
	Options   []string          `json:"options,omitempty" jsonschema:"a list"`
	Env       map[string]string `json:"env,omitempty" jsonschema:"an object"`
}

func echoTyped(name string, _ tool.Env) *tool.Tool {
	return coordinator.NewTool(tool.Spec[typedInput]{Name: name, Description: "Echo the decoded input.",
		Run: func(_ context.Context, _ *tool.Call, in *typedInput) (tool.Result, error) {
			b, _ := json.Marshal(in)
			return tool.TextResult(string(b)), nil
		}})
}

func newTypedCoordinator(t *testing.T) (*coordinator.Coordinator, *coordinator.Session) {
	t.Helper()
	c := coordinator.New(coordinator.Options{Tools: []tool.Registration{{Name: "typed", Factory: echoTyped}}})
	t.Cleanup(c.Close)
	s, err := c.Sessions().Get(api.DefaultSessionID)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func TestStringParamsAreCoercedToTheSchemaType(t *testing.T) {
	c, s := newTypedCoordinator(t)
	cases := []struct {
		name, input string
		ok          bool
		want        string // the decoded input, or a part of the error
	}{
		{"every type as a string",
			`{"path":"a","recursive":"true","line":"10","ratio":"0.5","options":"[\"x\",\"y\"]","env":"{\"K\":\"v\"}"}`, true,
			`{"path":"a","recursive":true,"line":10,"ratio":0.5,"options":["x","y"],"env":{"K":"v"}}`},
		{"spaces and case as Cline's trimmed params may have them", `{"path":"a","recursive":" False ","line":" 7 "}`, true,
			`{"path":"a","line":7}`},
		{"an empty string is an absent parameter", `{"path":"a","line":"","recursive":""}`, true, `{"path":"a"}`},
		{"typed values stay as they are", `{"path":"a","recursive":true,"line":3}`, true, `{"path":"a","recursive":true,"line":3}`},
		{"a string parameter is never parsed", `{"path":"10"}`, true, `{"path":"10"}`},
		{"a typed parameter's name as a string value is no key", `{"path":"line","line": 3, "recursive" : "true"}`, true,
			`{"path":"line","recursive":true,"line":3}`},
		{"spaces around the colon", `{"path":"a", "line" :	"5"}`, true, `{"path":"a","line":5}`},
		{"a key spelled with an escape is still coerced", `{"path":"a","li\u006ee":"4"}`, true, `{"path":"a","line":4}`},
		{"a string that is no boolean keeps the type error", `{"path":"a","recursive":"yes"}`, false, "recursive: must be a boolean, got string"},
		{"a string that is no integer keeps the type error", `{"path":"a","line":"ten"}`, false, "line: must be an integer, got string"},
		{"a fraction is no integer", `{"path":"a","line":"1.5"}`, false, "line: must be an integer"},
		{"JSON of the wrong shape is not an array", `{"path":"a","options":"{\"a\":1}"}`, false, "options: must be an array"},
		{"a coerced value is still validated", `{"path":"a","line":"-2"}`, false, "line: must be at least 1"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, rec := c.Execute(t.Context(), s, "", use1("typed", "c"+string(rune('a'+i)), tc.input))
			text := res.Content[0].Text
			if tc.ok {
				if rec.Status != api.StatusSucceeded || text != tc.want {
					t.Errorf("got %s %q, want %q", rec.Status, text, tc.want)
				}
				return
			}
			if rec.Status != api.StatusInvalid || !strings.Contains(text, tc.want) {
				t.Errorf("got %s %q, want invalid with %q", rec.Status, text, tc.want)
			}
		})
	}
	t.Run("the published schema stays typed", func(t *testing.T) {
		tools := c.Tools(nil)
		if !strings.Contains(string(tools[0].InputSchema), `"recursive":{"type":["null","boolean"]`) {
			t.Errorf("schema = %s", tools[0].InputSchema)
		}
	})
}

func TestTaskProgressIsKeptOnTheSession(t *testing.T) {
	c, s := newTypedCoordinator(t)
	checklist := "- [x] read the code\n- [ ] fix the bug"
	steps := []struct {
		name, input string
		progress    string // the session's checklist after the call
		event       bool   // a task.progress event was emitted
	}{
		{"a first checklist", `{"path":"a","task_progress":"` + strings.ReplaceAll(checklist, "\n", `\n`) + `\n"}`, checklist, true},
		{"the same checklist again emits nothing", `{"path":"b","task_progress":"` + strings.ReplaceAll(checklist, "\n", `\n`) + `"}`, checklist, false},
		{"an empty one keeps the last", `{"path":"c","task_progress":"  "}`, checklist, false},
		{"a call without one keeps the last", `{"path":"d"}`, checklist, false},
		{"an invalid call still reports progress", `{"line":"x","task_progress":"- [x] all"}`, "- [x] all", true},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := s.Events.Cursor(1 << 62)
			id := "p" + string(rune('a'+i))
			_, rec := c.Execute(t.Context(), s, "", use1("typed", id, st.input))
			if i < 4 && rec.Status != api.StatusSucceeded {
				t.Fatalf("status %s: task_progress must be accepted beside the tool's own parameters (%+v)", rec.Status, rec.Error)
			}
			if got := s.View().TaskProgress; got != st.progress {
				t.Errorf("session task_progress = %q, want %q", got, st.progress)
			}
			var events []api.Event
			for _, e := range s.Events.Read(before, 100).Events {
				if e.Type == api.EventTaskProgress {
					events = append(events, e)
				}
			}
			if st.event != (len(events) == 1) || len(events) > 1 {
				t.Fatalf("task.progress events = %+v, want one: %v", events, st.event)
			}
			if st.event && (events[0].TaskProgress != st.progress || events[0].ToolUseID != id) {
				t.Errorf("event = %+v", events[0])
			}
		})
	}
	t.Run("task_progress is not part of the loop guard's key", func(t *testing.T) {
		var last string
		for i := range 3 {
			res, _ := c.Execute(t.Context(), s, "", use1("typed", "loop"+string(rune('a'+i)),
				`{"path":"same","task_progress":"- [ ] step `+string(rune('1'+i))+`"}`))
			last = res.Content[len(res.Content)-1].Text
		}
		if !strings.Contains(last, "has been called 3 times consecutively") {
			t.Errorf("third call's last block = %q, want the loop warning", last)
		}
	})
}

func TestEveryValidationRuleHasASentence(t *testing.T) {
	t.Run("a tag without a sentence is refused at registration", func(t *testing.T) {
		type badInput struct {
			Mail string `json:"mail" validate:"email"`
		}
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), `"email"`) {
				t.Errorf("recover() = %v, want a panic naming the tag", r)
			}
		}()
		coordinator.NewTool(tool.Spec[badInput]{Name: "bad", Run: func(context.Context, *tool.Call, *badInput) (tool.Result, error) {
			return tool.Result{}, nil
		}})
	})
	type ruled struct {
		Start int      `json:"start_line,omitempty"`
		End   int      `json:"end_line,omitempty" validate:"omitempty,gtefield=Start"`
		Cmd   string   `json:"cmd,omitempty" validate:"omitempty,max=3"`
		Tags  []string `json:"tags,omitempty" validate:"omitempty,min=2"`
		Kind  string   `json:"kind,omitempty" validate:"omitempty,oneof=a b"`
	}
	c := coordinator.New(coordinator.Options{Dialects: []tool.Dialect{cline.Dialect()}, Tools: []tool.Registration{{Name: "ruled", Factory: func(n string, _ tool.Env) *tool.Tool {
		return coordinator.NewTool(tool.Spec[ruled]{Name: n, Run: func(context.Context, *tool.Call, *ruled) (tool.Result, error) {
			return tool.TextResult("ok"), nil
		}})
	}}}})
	defer c.Close()
	s, _ := c.Sessions().Get(api.DefaultSessionID)
	res, _ := c.Execute(t.Context(), s, "", use1("ruled", "r1", `{"start_line":5,"end_line":2,"cmd":"abcd","tags":["x"],"kind":"c"}`))
	want := "The tool execution failed with the following error:\n<error>\nInvalid input for tool ruled.\n- cmd: must be at most 3 characters long\n- end_line: must not be less than start_line\n" +
		"- kind: must be one of: a, b\n- tags: must be at least 2 items\n</error>"
	if got := res.Content[0].Text; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, tag := range []string{"gtefield", "failed gte", "=", "oneof", "max="} {
		if strings.Contains(res.Content[0].Text, tag) {
			t.Errorf("model-facing text holds validator syntax %q", tag)
		}
	}
}
