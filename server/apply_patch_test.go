package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// threeFilePatch updates a.txt, adds b.txt and deletes c.txt, in Cline's
// apply_patch format (ApplyPatchHandler.ts, v4.0.12).
const threeFilePatch = "*** Begin Patch\n*** Update File: a.txt\n-old\n+new\n*** Add File: b.txt\n+born\n*** Delete File: c.txt\n*** End Patch\n"

func patchUse(id, text string) api.ToolUse {
	raw, _ := json.Marshal(map[string]string{"input": text})
	return api.ToolUse{Type: api.TypeToolUse, ID: id, Name: "apply_patch", Input: raw}
}

// TestApplyPatchApproval: without an allow rule a patch asks, its preview
// shows every file's diff and every path, and a rejection writes nothing.
// Plan mode refuses it like every write.
func TestApplyPatchApproval(t *testing.T) {
	fx := newFixture(t, fixtureOptions{files: map[string]string{"a.txt": "old\n", "c.txt": "doomed\n"},
		server: Config{Token: flowToken}})
	f := &flowServer{url: fx.url, dir: fx.dir}
	unchanged := func(t *testing.T) {
		t.Helper()
		for name, want := range map[string]string{"a.txt": "old\n", "c.txt": "doomed\n"} {
			if b, err := os.ReadFile(filepath.Join(f.dir, name)); err != nil || string(b) != want {
				t.Errorf("%s: got %q %v, want %q", name, b, err, want)
			}
		}
		if _, err := os.Stat(filepath.Join(f.dir, "b.txt")); !os.IsNotExist(err) {
			t.Errorf("b.txt exists, want absent")
		}
	}

	t.Run("preview shows the whole patch", func(t *testing.T) {
		sid := f.session(t, api.Permissions{})
		ch := f.sseMessage(t, sid, patchUse("p1", threeFilePatch))
		ev := next(t, ch, api.EventToolAwaitingApproval)
		p := ev.Approval.Preview
		for _, want := range []string{"updated a.txt", "-old", "+new", "created b.txt", "+born", "deleted c.txt", "-doomed"} {
			if !strings.Contains(p.Diff, want) {
				t.Errorf("preview diff lacks %q:\n%s", want, p.Diff)
			}
		}
		if strings.Join(p.Paths, ",") != "a.txt,b.txt,c.txt" {
			t.Errorf("preview paths: got %v, want a.txt, b.txt, c.txt", p.Paths)
		}
		f.decide(t, sid, "p1", api.DecisionRequest{Decision: api.DecisionReject})
		if resp := next(t, ch, api.EventMessageFinished).Response; resp.Calls[0].Status != api.StatusDenied {
			t.Errorf("rejected call: got %s, want denied", resp.Calls[0].Status)
		}
		unchanged(t)
	})

	t.Run("plan mode refuses", func(t *testing.T) {
		var s api.Session
		if code := f.call(t, http.MethodPost, "/v1/sessions", api.CreateSessionRequest{Mode: api.ModePlan}, &s); code != http.StatusCreated {
			t.Fatalf("create session: %d", code)
		}
		ch := f.sseMessage(t, s.ID, patchUse("p2", threeFilePatch))
		resp := next(t, ch, api.EventMessageFinished).Response
		if got := resp.Calls[0]; got.Status != api.StatusDenied || !strings.Contains(texts(resp.Message.Content[0]), "plan mode") {
			t.Errorf("got %+v %q, want denied in plan mode", got, texts(resp.Message.Content[0]))
		}
		unchanged(t)
	})
}

// TestApplyPatchRevert: the revert route takes a whole patch back, and
// refuses (touching nothing) when any of its files changed since.
func TestApplyPatchRevert(t *testing.T) {
	files := map[string]string{"a.txt": "old\n", "c.txt": "doomed\n"}
	t.Run("all files restored", func(t *testing.T) {
		s := newEditServer(t, coordinator.DefaultConfig(), files)
		if rec, text := s.call(t, "toolu_p1", "apply_patch", map[string]any{"input": threeFilePatch}); rec.Status != api.StatusSucceeded {
			t.Fatalf("apply_patch: %s %s", rec.Status, text)
		}
		code, body := s.revert(t, "toolu_p1")
		if code != http.StatusOK {
			t.Fatalf("revert: %d %s", code, body)
		}
		var resp api.RevertResponse
		if err := json.Unmarshal([]byte(body), &resp); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range resp.Files {
			got = append(got, f.Path+":"+f.Action)
		}
		if want := "a.txt:restored,b.txt:deleted,c.txt:restored"; strings.Join(got, ",") != want {
			t.Errorf("reverted files: got %v, want %s", got, want)
		}
		for name, want := range map[string]string{"a.txt": "old\n", "b.txt": "<absent>", "c.txt": "doomed\n"} {
			if got := s.file(t, name); got != want {
				t.Errorf("%s = %q, want %q", name, got, want)
			}
		}
	})
	t.Run("refused when one file changed", func(t *testing.T) {
		s := newEditServer(t, coordinator.DefaultConfig(), files)
		if rec, text := s.call(t, "toolu_p2", "apply_patch", map[string]any{"input": threeFilePatch}); rec.Status != api.StatusSucceeded {
			t.Fatalf("apply_patch: %s %s", rec.Status, text)
		}
		s.setFile(t, "b.txt", "edited by hand\n")
		code, body := s.revert(t, "toolu_p2")
		if code != http.StatusConflict || !strings.Contains(body, "file_changed") || !strings.Contains(body, "b.txt") {
			t.Fatalf("revert: got %d %s, want 409 file_changed naming b.txt", code, body)
		}
		for name, want := range map[string]string{"a.txt": "new\n", "b.txt": "edited by hand\n", "c.txt": "<absent>"} {
			if got := s.file(t, name); got != want {
				t.Errorf("%s = %q, want %q (nothing reverted)", name, got, want)
			}
		}
	})
}
