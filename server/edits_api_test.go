package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

func TestStaleFileGuardHTTP(t *testing.T) {
	s := newEditServer(t, coordinator.DefaultConfig(), map[string]string{"f.txt": "a\nb\n"})
	if rec, _ := s.call(t, "toolu_read", "read_file", map[string]any{"path": "f.txt"}); rec.Status != api.StatusSucceeded {
		t.Fatalf("read_file: status %s", rec.Status)
	}
	s.setFile(t, "f.txt", "a\nb\nexternal\n")

	t.Run("edit of a changed file refused", func(t *testing.T) {
		rec, text := s.call(t, "toolu_edit1", "replace_in_file", map[string]any{"path": "f.txt", "diff": searchReplace("a\n", "A\n")})
		if rec.Status != api.StatusFailed || rec.Error == nil || rec.Error.Code != api.ToolCodeFileChanged {
			t.Fatalf("call = %+v, want failed with code file_changed", rec)
		}
		if !strings.Contains(text, "read_file") {
			t.Errorf("result %q does not tell the model to read the file again", text)
		}
		if got := s.file(t, "f.txt"); got != "a\nb\nexternal\n" {
			t.Errorf("f.txt = %q, want the external change kept", got)
		}
	})
	t.Run("write_to_file refused too", func(t *testing.T) {
		rec, _ := s.call(t, "toolu_write1", "write_to_file", map[string]any{"path": "f.txt", "content": "x\n"})
		if rec.Error == nil || rec.Error.Code != api.ToolCodeFileChanged {
			t.Fatalf("call = %+v, want code file_changed", rec)
		}
	})
	t.Run("allowed after reading again", func(t *testing.T) {
		s.call(t, "toolu_read2", "read_file", map[string]any{"path": "f.txt"})
		rec, text := s.call(t, "toolu_edit2", "replace_in_file", map[string]any{"path": "f.txt", "diff": searchReplace("a\n", "A\n")})
		if rec.Status != api.StatusSucceeded {
			t.Fatalf("status %s: %s", rec.Status, text)
		}
		if got, want := s.file(t, "f.txt"), "A\nb\nexternal\n"; got != want {
			t.Errorf("f.txt = %q, want %q", got, want)
		}
		if !strings.Contains(text, "<final_file_content path=\"f.txt\">\nA\nb\nexternal\n") {
			t.Errorf("result %q does not show the file as saved", text)
		}
	})
}

func TestRequireReadHTTP(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.RequireReadBeforeEdit = true
	s := newEditServer(t, cfg, map[string]string{"f.txt": "a\n"})
	rec, _ := s.call(t, "toolu_1", "replace_in_file", map[string]any{"path": "f.txt", "diff": searchReplace("a\n", "b\n")})
	if rec.Error == nil || rec.Error.Code != api.ToolCodeReadRequired {
		t.Fatalf("call = %+v, want code read_required", rec)
	}
	if got := s.file(t, "f.txt"); got != "a\n" {
		t.Errorf("f.txt = %q, want untouched", got)
	}
}

func TestPartialPreviewHTTP(t *testing.T) {
	s := newEditServer(t, coordinator.DefaultConfig(), map[string]string{"f.txt": "one\ntwo\nthree\n"})
	msg := assistant(
		partialUse("toolu_p", "replace_in_file", map[string]any{
			"path": "f.txt",
			"diff": searchReplace("one\n", "ONE\n") + "------- SEARCH\nthree\n=======\nTHR",
		}),
		partialUse("toolu_w", "write_to_file", map[string]any{"path": "g.txt", "content": "new\n"}),
		// As Cline streams it: the checklist beside the tool's own
		// parameters, and a number written as a string.
		partialUse("toolu_c", "write_to_file", map[string]any{"path": "h.txt", "content": "listed\n", "task_progress": "- [ ] write h.txt"}),
		partialUse("toolu_n", "replace_in_file", map[string]any{"path": "f.txt", "diff": searchReplace("two\n", "TWO\n"), "task_progress": "- [x] read f.txt"}),
	)
	resp := s.do(t, http.MethodPost, "/v1/sessions/default/messages", msg, "Accept", "text/event-stream")
	defer resp.Body.Close()
	evs := readEvents(t, resp.Body, 10*time.Second, func(e sseEvent) bool { return e.Name == api.EventMessageFinished })
	previews := map[string]*api.Preview{}
	var finished *api.MessageResponse
	for _, e := range evs {
		switch e.Name {
		case api.EventToolPartial:
			previews[e.Data.ToolUseID] = e.Data.Preview
		case api.EventToolStarted, api.EventToolFinished:
			t.Errorf("partial block ran: %s for %s", e.Name, e.Data.ToolUseID)
		case api.EventMessageFinished:
			finished = e.Data.Response
		}
	}
	t.Run("diff so far", func(t *testing.T) {
		p := previews["toolu_p"]
		if p == nil {
			t.Fatalf("no tool.partial preview for toolu_p; got %v", previews)
		}
		if !strings.Contains(p.Diff, "-one\n+ONE\n") || strings.Contains(p.Diff, "THR") {
			t.Errorf("preview diff = %q, want the first block only", p.Diff)
		}
	})
	t.Run("write_to_file preview", func(t *testing.T) {
		if p := previews["toolu_w"]; p == nil || !strings.Contains(p.Diff, "+new") {
			t.Errorf("preview = %+v, want a diff adding new", p)
		}
	})
	// A partial block's input is read as the complete block's will be
	// (the prepare stage's decodeUse), not refused for a parameter the
	// call itself takes out.
	t.Run("task_progress beside the input", func(t *testing.T) {
		if p := previews["toolu_c"]; p == nil || p.Error != "" || !strings.Contains(p.Diff, "+listed") {
			t.Errorf("write_to_file preview = %+v, want a diff adding listed", p)
		}
		if p := previews["toolu_n"]; p == nil || p.Error != "" || !strings.Contains(p.Diff, "-two\n+TWO\n") {
			t.Errorf("replace_in_file preview = %+v, want the block's diff", p)
		}
	})
	t.Run("nothing written or answered", func(t *testing.T) {
		if got := s.file(t, "f.txt"); got != "one\ntwo\nthree\n" {
			t.Errorf("f.txt = %q, want untouched", got)
		}
		if got := s.file(t, "g.txt"); got != "<absent>" {
			t.Errorf("g.txt = %q, want absent", got)
		}
		if finished == nil || len(finished.Calls) != 0 {
			t.Errorf("message.finished = %+v, want no calls", finished)
		}
	})
	t.Run("complete block with the same id runs", func(t *testing.T) {
		rec, text := s.call(t, "toolu_p", "replace_in_file", map[string]any{"path": "f.txt", "diff": searchReplace("one\n", "ONE\n")})
		if rec.Status != api.StatusSucceeded {
			t.Fatalf("status %s: %s", rec.Status, text)
		}
	})
}

func TestRevertHTTP(t *testing.T) {
	t.Run("restores content", func(t *testing.T) {
		s := newEditServer(t, coordinator.DefaultConfig(), map[string]string{"f.txt": "a\nb\n"})
		s.call(t, "toolu_1", "replace_in_file", map[string]any{"path": "f.txt", "diff": searchReplace("a\n", "A\n")})
		code, body := s.revert(t, "toolu_1")
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, body)
		}
		var resp api.RevertResponse
		if err := json.Unmarshal([]byte(body), &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Action != api.RevertRestored || resp.Path != "f.txt" || !strings.Contains(resp.Diff, "-A\n+a\n") {
			t.Errorf("response = %+v", resp)
		}
		if got := s.file(t, "f.txt"); got != "a\nb\n" {
			t.Errorf("f.txt = %q, want restored", got)
		}
		if code, _ := s.revert(t, "toolu_1"); code != http.StatusConflict {
			t.Errorf("second revert: status %d, want 409", code)
		}
		// The revert counts as the session's own write: a further edit is not stale.
		if rec, text := s.call(t, "toolu_2", "replace_in_file", map[string]any{"path": "f.txt", "diff": searchReplace("b\n", "B\n")}); rec.Status != api.StatusSucceeded {
			t.Errorf("edit after revert: %s: %s", rec.Status, text)
		}
	})
	t.Run("deletes a created file", func(t *testing.T) {
		s := newEditServer(t, coordinator.DefaultConfig(), nil)
		s.call(t, "toolu_1", "write_to_file", map[string]any{"path": "new.txt", "content": "x\n"})
		code, body := s.revert(t, "toolu_1")
		if code != http.StatusOK || !strings.Contains(body, `"action":"deleted"`) {
			t.Fatalf("status %d: %s", code, body)
		}
		if got := s.file(t, "new.txt"); got != "<absent>" {
			t.Errorf("new.txt = %q, want absent", got)
		}
	})
	t.Run("refused after a later change", func(t *testing.T) {
		s := newEditServer(t, coordinator.DefaultConfig(), map[string]string{"f.txt": "a\n"})
		s.call(t, "toolu_1", "write_to_file", map[string]any{"path": "f.txt", "content": "b\n"})
		s.setFile(t, "f.txt", "c\n")
		code, body := s.revert(t, "toolu_1")
		if code != http.StatusConflict || !strings.Contains(body, api.CodeFileChanged) {
			t.Fatalf("status %d: %s, want 409 file_changed", code, body)
		}
		if got := s.file(t, "f.txt"); got != "c\n" {
			t.Errorf("f.txt = %q, want the later change kept", got)
		}
	})
	t.Run("stack of edits reverts newest first", func(t *testing.T) {
		s := newEditServer(t, coordinator.DefaultConfig(), map[string]string{"f.txt": "1\n"})
		s.call(t, "toolu_1", "write_to_file", map[string]any{"path": "f.txt", "content": "2\n"})
		s.call(t, "toolu_2", "write_to_file", map[string]any{"path": "f.txt", "content": "3\n"})
		if code, _ := s.revert(t, "toolu_1"); code != http.StatusConflict {
			t.Errorf("reverting the older edit first: status %d, want 409", code)
		}
		for _, id := range []string{"toolu_2", "toolu_1"} {
			if code, body := s.revert(t, id); code != http.StatusOK {
				t.Fatalf("revert %s: status %d: %s", id, code, body)
			}
		}
		if got := s.file(t, "f.txt"); got != "1\n" {
			t.Errorf("f.txt = %q, want %q", got, "1\n")
		}
	})
	t.Run("bounded history", func(t *testing.T) {
		cfg := coordinator.DefaultConfig()
		cfg.RevertMaxCount = 1
		s := newEditServer(t, cfg, map[string]string{"f.txt": "1\n", "g.txt": "1\n"})
		s.call(t, "toolu_1", "write_to_file", map[string]any{"path": "f.txt", "content": "2\n"})
		s.call(t, "toolu_2", "write_to_file", map[string]any{"path": "g.txt", "content": "2\n"})
		if code, _ := s.revert(t, "toolu_1"); code != http.StatusConflict {
			t.Errorf("revert of a dropped edit: status %d, want 409", code)
		}
		if code, _ := s.revert(t, "toolu_2"); code != http.StatusOK {
			t.Errorf("revert of the kept edit: status %d, want 200", code)
		}
	})
	t.Run("unknown call", func(t *testing.T) {
		s := newEditServer(t, coordinator.DefaultConfig(), nil)
		if code, _ := s.revert(t, "toolu_nope"); code != http.StatusNotFound {
			t.Errorf("status %d, want 404", code)
		}
	})
	t.Run("failed call has nothing to revert", func(t *testing.T) {
		s := newEditServer(t, coordinator.DefaultConfig(), map[string]string{"f.txt": "a\n"})
		s.call(t, "toolu_1", "replace_in_file", map[string]any{"path": "f.txt", "diff": searchReplace("zzz\n", "b\n")})
		if code, _ := s.revert(t, "toolu_1"); code != http.StatusConflict {
			t.Errorf("status %d, want 409", code)
		}
	})
}
