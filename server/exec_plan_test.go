package server

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// Plan mode runs commands that only read and refuses the rest, before
// anything runs.
func TestPlanModeCommands(t *testing.T) {
	s := newExecServer(t)
	sid := decodeJSON[api.Session](t, s.request(t, t.Context(), "POST", "/v1/sessions", map[string]any{"mode": "plan"}, ""), http.StatusCreated).ID
	if err := os.WriteFile(filepath.Join(s.dir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, id, command string) (api.CallRecord, string) {
		t.Helper()
		got := decodeJSON[api.MessageResponse](t, s.request(t, t.Context(), "POST", "/v1/sessions/"+sid+"/messages",
			message(commandUse(id, command)), ""), http.StatusOK)
		var text strings.Builder
		for _, c := range got.Message.Content[0].Content {
			text.WriteString(c.Text)
		}
		return got.Calls[0], text.String()
	}
	for _, c := range []struct{ name, command, want string }{
		{"cat", "cat a.txt", "alpha"},
		{"grep in a pipeline", "grep -n alpha a.txt | head -1", "1:alpha"},
		{"ls", "ls", "a.txt"},
	} {
		t.Run("runs "+c.name, func(t *testing.T) {
			rec, text := run(t, "toolu_r_"+strings.ReplaceAll(c.name, " ", "_"), c.command)
			if rec.Status != api.StatusSucceeded || !strings.Contains(text, c.want) {
				t.Errorf("got %s %q, want succeeded with %q", rec.Status, text, c.want)
			}
		})
	}
	for _, c := range []struct{ name, command, file string }{
		{"touch", "touch made.txt", "made.txt"},
		{"a redirection", "echo hi > out.txt", "out.txt"},
		{"a writer after a reader", "ls && rm a.txt", ""},
	} {
		t.Run("refuses "+c.name, func(t *testing.T) {
			rec, text := run(t, "toolu_w_"+strings.ReplaceAll(c.name, " ", "_"), c.command)
			if rec.Status != api.StatusDenied || rec.Error == nil || rec.Error.Code != api.ToolCodePlanMode || !strings.Contains(text, "act mode") {
				t.Errorf("got %s %+v %q, want denied in plan mode with a hint to switch", rec.Status, rec.Error, text)
			}
			if c.file != "" {
				if _, err := os.Stat(filepath.Join(s.dir, c.file)); err == nil {
					t.Errorf("%s was created", c.file)
				}
			}
			if _, err := os.Stat(filepath.Join(s.dir, "a.txt")); err != nil {
				t.Errorf("a.txt: %v", err)
			}
		})
	}
	t.Run("listed in plan mode, writing tools not", func(t *testing.T) {
		got := decodeJSON[api.ToolsResponse](t, s.request(t, t.Context(), "GET", "/v1/tools?session="+sid, nil, ""), http.StatusOK)
		var names []string
		for _, tool := range got.Tools {
			names = append(names, tool.Name)
		}
		if !slices.Contains(names, "execute_command") || slices.Contains(names, "write_to_file") {
			t.Errorf("plan-mode tools %v, want execute_command and no write_to_file", names)
		}
	})
}
