package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/internal/randid"
)

// TestPersistentShellKeepsNoApprovedState is the attack on the Messages
// API's persistent bash: a command the user approved leaves the shell
// outside the workspace, or defines a function or a DEBUG trap, and a
// later command that needs no approval runs under it and prints a secret
// outside the workspace. Each later command must run at the workspace
// root with no function or trap of the approved one.
func TestPersistentShellKeepsNoApprovedState(t *testing.T) {
	outside, err := os.MkdirTemp("/var/tmp", "tg-outside-") // /tmp is private inside the sandbox
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	secret := "secret-" + randid.Hex(8)
	if err := os.WriteFile(outside+"/secret", []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, _ := newDialectServer(t, coordinator.Config{}, map[string]string{"a.txt": "workspace file\n"})
	for i, c := range []struct{ name, approved, later string }{
		{"cd outside", "cd " + outside, "cat secret"},
		{"function", fmt.Sprintf("cat() { command cat %s/secret; }", outside), "cat a.txt"},
		{"debug trap", fmt.Sprintf("trap 'command cat %s/secret' DEBUG", outside), "cat a.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSessionOf(t, ts, map[string]any{"dialect": "anthropic"})
			sess, err := ts.coord.Sessions().Get(s.ID)
			if err != nil {
				t.Fatal(err)
			}
			approveNext(t, ts, sess, fmt.Sprintf("toolu_a%d", i), c.approved)
			resp := decodeBody[api.MessageResponse](t, ts.do(t, http.MethodPost, "/v1/sessions/"+s.ID+"/messages",
				assistant(toolUse(fmt.Sprintf("toolu_l%d", i), "bash", map[string]any{"command": c.later}))), http.StatusOK)
			out := resp.Message.Content[0].Content[0].Text
			if strings.Contains(out, secret) {
				t.Fatalf("the later, unapproved %q printed the secret: %q", c.later, out)
			}
			if c.later == "cat a.txt" && !strings.Contains(out, "workspace file") {
				t.Errorf("cat a.txt = %q, want the workspace file", out)
			}
		})
	}
}

// approveNext posts one bash call, approves it when it asks, and waits
// for its answer.
func approveNext(t *testing.T, ts *testServer, sess *coordinator.Session, id, command string) {
	t.Helper()
	done := make(chan api.MessageResponse, 1)
	go func() {
		resp, err := ts.Client().Do(ts.request(t, http.MethodPost, "/v1/sessions/"+sess.ID+"/messages",
			assistant(toolUse(id, "bash", map[string]any{"command": command}))))
		if err != nil {
			done <- api.MessageResponse{}
			return
		}
		defer resp.Body.Close()
		var m api.MessageResponse
		_ = json.NewDecoder(resp.Body).Decode(&m)
		done <- m
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := sess.Events.WaitFor(ctx, 0, func(ev api.Event) bool {
		return ev.Type == api.EventToolAwaitingApproval && ev.ToolUseID == id
	}); err != nil {
		t.Fatalf("%q did not ask for approval: %v", command, err)
	}
	if _, err := ts.coord.Decide(sess, id, api.DecisionRequest{Decision: api.DecisionApprove}, "token"); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-done:
		if len(m.Calls) != 1 || m.Calls[0].Status != api.StatusSucceeded {
			t.Fatalf("approved %q: %+v", command, m)
		}
	case <-ctx.Done():
		t.Fatalf("approved %q did not finish", command)
	}
}
