package coordinator_test

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// Deleting a session cancels the call it is running: the call ends
// cancelled, with the plain "Cancelled." of a session's end, and a call
// posted to the session after it ended never runs.
func TestSessionDeleteCancelsItsCalls(t *testing.T) {
	g := newGate()
	c, s := newGateCoordinator(t, g)
	type answer struct {
		res api.ToolResult
		rec api.CallRecord
	}
	ch := make(chan answer, 1)
	go func() {
		res, rec := c.Execute(t.Context(), s, "", api.ToolUse{Type: api.TypeToolUse, ID: "toolu_running", Name: "gate", Input: json.RawMessage(`{}`)})
		ch <- answer{res, rec}
	}()
	receive(t, g.started)
	if err := c.Sessions().Delete(s.ID); err != nil {
		t.Fatal(err)
	}
	a := receive(t, ch)
	if a.rec.Status != api.StatusCancelled || a.rec.Error == nil || a.rec.Error.Code != api.ToolCodeCancelled ||
		len(a.res.Content) == 0 || a.res.Content[len(a.res.Content)-1].Text != "Cancelled." {
		t.Errorf("running call after its session's delete: %s %+v %+v, want cancelled, \"Cancelled.\"", a.rec.Status, a.rec.Error, a.res.Content)
	}

	res, rec := execute(t, c, t.Context(), s, api.ToolUse{Type: api.TypeToolUse, ID: "toolu_after", Name: "gate", Input: json.RawMessage(`{}`)})
	if rec.Status != api.StatusCancelled || len(res.Content) == 0 || res.Content[len(res.Content)-1].Text != "Cancelled." {
		t.Errorf("call after the session's delete: %s %+v, want cancelled, \"Cancelled.\"", rec.Status, res.Content)
	}
	if n := g.runs.Load(); n != 1 {
		t.Errorf("gate ran %d times, want 1 (the call after the delete never runs)", n)
	}
}
