package server

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolgate/toolgate/api"
)

// TestConsoleShowsTodos: the console shows the todo list a claude_code
// session's model keeps with TodoWrite (Claude Code's TodoWriteTool:
// todos of {content, status pending|in_progress|completed, activeForm}),
// live from the todos.updated event and from the session after a reload,
// as text only.
func TestConsoleShowsTodos(t *testing.T) {
	env := newWebEnv(t, nil, nil)
	auth := map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": "application/json"}
	var sess api.Session
	if err := json.NewDecoder(env.do(t, http.MethodPost, "/v1/sessions", `{"dialect":"claude_code"}`, auth).Body).Decode(&sess); err != nil || sess.ID == "" {
		t.Fatalf("create session: %v %+v", err, sess)
	}
	todoWrite := func(id string, todos []api.Todo) {
		t.Helper()
		body, _ := json.Marshal(assistant(toolUse(id, "TodoWrite", map[string]any{"todos": todos})))
		resp := env.do(t, http.MethodPost, "/v1/sessions/"+sess.ID+"/messages", string(body), auth)
		var got api.MessageResponse
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || len(got.Calls) != 1 || got.Calls[0].Status != api.StatusSucceeded {
			t.Fatalf("TodoWrite: %d %v %+v", resp.StatusCode, err, got)
		}
	}
	listed := `[...document.querySelectorAll("#todos li")].map(li => li.className + ":" + li.querySelector("input").checked + ":" + li.textContent.trim()).join("|")`

	ctx := newBrowser(t, 45*time.Second)
	do(t, ctx, "open the console", chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.ID("token")))
	do(t, ctx, "paste the token", chromedp.SendKeys(chromedp.ID("token"), testToken), chromedp.Click(chromedp.CSS("#login button")))
	waitInPage(t, ctx, "the live stream", `document.getElementById("stream").textContent.startsWith("live")`)
	evalAsync[bool](t, ctx, js(`(document.getElementById("session").value = {{SID}}, true)`, map[string]string{"SID": sess.ID}))
	do(t, ctx, "watch the claude_code session", chromedp.Click(chromedp.CSS("#session-form button")))
	waitInPage(t, ctx, "the session's stream", js(`document.getElementById("stream").textContent === "live: " + {{SID}}`, map[string]string{"SID": sess.ID}))
	if !evalAsync[bool](t, ctx, `document.getElementById("todos-box").hidden`) {
		t.Error("the todo box shows before any TodoWrite")
	}

	t.Run("live", func(t *testing.T) {
		todoWrite("toolu_todo1", []api.Todo{
			{Content: "Read the config", Status: "completed", ActiveForm: "Reading the config"},
			{Content: "Fix the <b>bug</b>", Status: "in_progress", ActiveForm: "Fixing the bug"},
			{Content: "Run the tests", Status: "pending", ActiveForm: "Running the tests"},
		})
		waitInPage(t, ctx, "the todo list", `document.querySelectorAll("#todos li").length === 3 && !document.getElementById("todos-box").hidden`)
		want := "completed:true:Read the config|in_progress:false:Fix the <b>bug</b> (Fixing the bug)|pending:false:Run the tests"
		if got := evalAsync[string](t, ctx, listed); got != want {
			t.Errorf("todos = %q, want %q", got, want)
		}
		if evalAsync[bool](t, ctx, `document.querySelector("#todos b") !== null`) {
			t.Error("a todo's text was rendered as HTML")
		}
	})
	t.Run("replaced by the next TodoWrite", func(t *testing.T) {
		todoWrite("toolu_todo2", []api.Todo{
			{Content: "Read the config", Status: "completed", ActiveForm: "Reading the config"},
			{Content: "Fix the <b>bug</b>", Status: "completed", ActiveForm: "Fixing the bug"},
		})
		waitInPage(t, ctx, "the new list", `document.querySelectorAll("#todos li").length === 2`)
		if got := evalAsync[string](t, ctx, listed); got != "completed:true:Read the config|completed:true:Fix the <b>bug</b>" {
			t.Errorf("todos = %q", got)
		}
	})
	t.Run("after a reload, from the session", func(t *testing.T) {
		do(t, ctx, "reload", chromedp.Reload())
		waitInPage(t, ctx, "the list from the session", `document.querySelectorAll("#todos li.completed").length === 2`)
	})
}
