package coordinator

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// TestCommandPreviewListsNoWordsAsPaths: a command's approval preview
// shows its parts with their words, and lists none of them as paths
// ("step $i", "0.5" and "." are arguments, not files the call touches).
func TestCommandPreviewListsNoWordsAsPaths(t *testing.T) {
	p := newTestPolicy(t, Config{}, map[string]string{"a.txt": "a\n"})
	s := p.session(t, api.Permissions{})
	line := `for i in 1 2; do echo "step $i"; sleep 0.5; done; ls .`
	u := use("toolu_prev", "execute_command", cmd(line))
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.c.Execute(context.Background(), s, "", u)
	}()
	ev, err := s.Events.WaitFor(t.Context(), 0, func(ev api.Event) bool {
		return ev.Type == api.EventToolAwaitingApproval && ev.ToolUseID == u.ID
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.c.Decide(s, u.ID, api.DecisionRequest{Decision: api.DecisionReject}, "token"); err != nil {
		t.Fatal(err)
	}
	receive(t, done)
	pv := ev.Approval.Preview
	if len(pv.Paths) != 0 {
		t.Errorf("preview paths = %q, want none for a command", pv.Paths)
	}
	if pv.Command != line || len(pv.Parts) == 0 {
		t.Errorf("preview command %q parts %v, want the line and its parts", pv.Command, pv.Parts)
	}
}
