package coordinator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/api"
)

// TestIgnoreEnforced checks that .clineignore blocks every way of naming
// an ignored file, with a message naming the file and the rule.
func TestIgnoreEnforced(t *testing.T) {
	files := map[string]string{
		".clineignore": "# secrets\n.env\nsecret/\n!include extra.ignore\n",
		"extra.ignore": "*.key\n",
		".env":         "TOKEN=x", "d/f.key": "k", "d/ok.txt": "ok", "secret/x": "x", "a.txt": "a",
	}
	p := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowAll: true}}, files)
	if err := os.Symlink(".env", filepath.Join(p.dir, "link")); err != nil {
		t.Fatal(err)
	}
	s := p.session(t, api.Permissions{})
	tests := []struct {
		name string
		use  api.ToolUse
		rule string
	}{
		{"read", use("i1", "read_file", map[string]any{"path": ".env"}), ".clineignore:2:.env"},
		{"read dotdot", use("i2", "read_file", map[string]any{"path": "d/../.env"}), ".clineignore:2:.env"},
		{"read below ignored dir", use("i3", "read_file", map[string]any{"path": "secret/x"}), ".clineignore:3:secret/"},
		{"read included rule", use("i4", "read_file", map[string]any{"path": "d/f.key"}), "extra.ignore:1:*.key"},
		{"read through symlink", use("i5", "read_file", map[string]any{"path": "link"}), ".clineignore:2:.env"},
		{"write", use("i6", "write_to_file", map[string]any{"path": "secret/new", "content": "x"}), ".clineignore:3:secret/"},
		{"read the ignore file", use("i7", "read_file", map[string]any{"path": ".clineignore"}), ".clineignore:0:.clineignore"},
		{"cat", use("i8", "execute_command", cmd("cat .env")), ".clineignore:2:.env"},
		{"grep", use("i9", "execute_command", cmd("grep x .env")), ".clineignore:2:.env"},
		{"after cd", use("i10", "execute_command", cmd("cd d && cat f.key")), "extra.ignore:1:*.key"},
		{"in a later part", use("i11", "execute_command", cmd("ls && echo a | cat secret/x")), ".clineignore:3:secret/"},
		{"glob", use("i12", "execute_command", cmd("cat .e*")), ".clineignore:2:.env"},
		{"absolute path", use("i13", "execute_command", cmd("cat "+p.dir+"/.env")), ".clineignore:2:.env"},
		{"option value", use("i14", "execute_command", cmd("grep -f.env x")), ".clineignore:2:.env"},
		{"cwd", use("i15", "execute_command", map[string]any{"command": "cat f.key", "cwd": "d"}), "extra.ignore:1:*.key"},
		{"command through symlink", use("i16", "execute_command", cmd("cat link")), ".clineignore:2:.env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, rec := p.c.Execute(t.Context(), s, "", tt.use)
			if rec.Status != api.StatusDenied || rec.Error == nil || rec.Error.Code != api.ToolCodeIgnored {
				t.Fatalf("got %s %+v, want denied with code ignored", rec.Status, rec.Error)
			}
			// A .clineignore refusal is Cline's words alone (as cline@2.18.0
			// answers); another ignore file's names the rule.
			want := tt.rule
			if strings.HasPrefix(tt.rule, ".clineignore") {
				want = "is blocked by the .clineignore file settings."
			}
			if text := resultText(res); !strings.Contains(text, want) || len(res.Content) != 1 {
				t.Errorf("message %q (%d blocks) does not say %q in one block", text, len(res.Content), want)
			}
			if p.ran.has(tt.use.ID) {
				t.Errorf("the handler ran")
			}
		})
	}
	t.Run("allowed neighbours run", func(t *testing.T) {
		for i, u := range []api.ToolUse{
			use("o1", "read_file", map[string]any{"path": "d/ok.txt"}),
			use("o2", "execute_command", cmd("cd d && cat ok.txt")),
		} {
			if _, rec := p.c.Execute(t.Context(), s, "", u); rec.Status != api.StatusSucceeded {
				t.Errorf("call %d: got %s %+v, want succeeded", i, rec.Status, rec.Error)
			}
		}
	})
	t.Run("listing excludes", func(t *testing.T) {
		res, rec := p.c.Execute(t.Context(), s, "", use("o3", "list_files", map[string]any{"path": "."}))
		text := resultText(res)
		if rec.Status != api.StatusSucceeded || strings.Contains(text, ".env") || strings.Contains(text, "secret") || !strings.Contains(text, "3 entries were left out") {
			t.Errorf("got %s %q, want a.txt only and a note on 3 entries", rec.Status, text)
		}
	})
}

// TestIgnoreWalkedDirectory: a directory a tool walks (Spec.Walks) is
// judged by name, as Cline's validateAccess judges it: a rule for
// directories only leaves it open to the walk, which finds its entries
// excluded; a rule naming it whatever it is still refuses it.
func TestIgnoreWalkedDirectory(t *testing.T) {
	p := newTestPolicy(t, Config{PolicyConfig: PolicyConfig{AllowAll: true}}, map[string]string{
		".clineignore": "secret/\nnamed\n", "secret/x": "x", "named/y": "y", "a.txt": "a",
	})
	s := p.session(t, api.Permissions{})
	res, rec := p.c.Execute(t.Context(), s, "", use("w1", "list_files", map[string]any{"path": "secret"}))
	if text := resultText(res); rec.Status != api.StatusSucceeded || strings.Contains(text, "secret/x") {
		t.Errorf("list_files secret: got %s %q, want it run with secret/x excluded", rec.Status, text)
	}
	if _, rec := p.c.Execute(t.Context(), s, "", use("w2", "list_files", map[string]any{"path": "named"})); rec.Status != api.StatusDenied {
		t.Errorf("list_files named: got %s, want denied", rec.Status)
	}
	if _, rec := p.c.Execute(t.Context(), s, "", use("w3", "read_file", map[string]any{"path": "secret"})); rec.Status != api.StatusDenied {
		t.Errorf("read_file secret: got %s, want denied (read_file does not walk)", rec.Status)
	}
}

// TestIgnoreReload checks that an edit of .clineignore takes effect
// without a restart.
func TestIgnoreReload(t *testing.T) {
	p := newTestPolicy(t, Config{}, map[string]string{"notes.md": "n"})
	s := p.session(t, api.Permissions{})
	if _, rec := p.c.Execute(t.Context(), s, "", use("r0", "read_file", map[string]any{"path": "notes.md"})); rec.Status != api.StatusSucceeded {
		t.Fatalf("before: got %s, want succeeded", rec.Status)
	}
	if err := os.WriteFile(filepath.Join(p.dir, ".clineignore"), []byte("notes.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for i := 1; ; i++ {
		_, rec := p.c.Execute(t.Context(), s, "", use(fmt.Sprintf("r%d", i), "read_file", map[string]any{"path": "notes.md"}))
		if rec.Status == api.StatusDenied {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the edit: still %s, want denied", rec.Status)
		}
		<-time.After(20 * time.Millisecond)
	}
}
