package claudecode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// mapClaude decodes raw as the named Claude Code tool's input and maps it
// in env.
func mapClaude(t *testing.T, env tool.MapEnv, name, raw string) (tool.Mapping, error) {
	t.Helper()
	for _, dt := range Dialect().Tools {
		if dt.Name == name {
			in := dt.NewInput()
			if err := json.Unmarshal([]byte(raw), in); err != nil {
				t.Fatal(err)
			}
			return dt.Map(env, in)
		}
	}
	t.Fatalf("the claude_code dialect has no tool %s", name)
	return tool.Mapping{}, nil
}

func claudeEnv(t *testing.T) tool.MapEnv {
	t.Helper()
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return tool.MapEnv{Workspace: ws, Dir: &tool.ShellDir{}, Has: func(string) bool { return true }}
}

// TestEditRefusesNotebook: Edit of a notebook that exists is refused as
// Claude Code refuses it, sending the model to NotebookEdit; a missing
// notebook goes on to edit_text (answered as any missing file), and
// another file is edited.
func TestEditRefusesNotebook(t *testing.T) {
	env := claudeEnv(t)
	if err := os.WriteFile(filepath.Join(env.Workspace.Dir, "n.ipynb"), []byte(`{"cells":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := mapClaude(t, env, "Edit", `{"file_path":"n.ipynb","old_string":"x","new_string":"y"}`)
	var te *tool.ToolError
	want := "<tool_use_error>File is a Jupyter Notebook. Use the NotebookEdit to edit this file.</tool_use_error>"
	if !errors.As(err, &te) || te.Code != api.ToolCodeInvalid || te.Message != want {
		t.Errorf("Edit of a notebook: %v, want %s", err, want)
	}
	for _, p := range []string{"missing.ipynb", "n.txt"} {
		if m, err := mapClaude(t, env, "Edit", `{"file_path":"`+p+`","old_string":"x","new_string":"y"}`); err != nil || m.Tool != "edit_text" {
			t.Errorf("Edit of %s: %+v, %v, want an edit_text call", p, m, err)
		}
	}
}

// TestBashNoOutput: a command that succeeds without output is answered
// "(Bash completed with no output)", as Claude Code answers it; a failing
// one keeps its exit code.
func TestBashNoOutput(t *testing.T) {
	env := claudeEnv(t)
	m, err := mapClaude(t, env, "Bash", `{"command":"touch x"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Result(tool.TextResult("Command executed successfully (exit code 0)."), "").LastText(); got != "(Bash completed with no output)" {
		t.Errorf("no output: %q", got)
	}
	if got := m.Result(tool.ErrorResult("Command failed with exit code 1."), api.ToolCodeExitStatus).LastText(); got != "Exit code 1" {
		t.Errorf("failed without output: %q", got)
	}
}

// TestEditTrimsLineEnds: Edit's new_string loses each line's trailing
// white space, line ends kept, as Claude Code's Edit writes it, except in
// Markdown; and edit_text is asked to fold curly quotes, as Claude Code
// finds an old_string.
func TestEditTrimsLineEnds(t *testing.T) {
	env := claudeEnv(t)
	for path, want := range map[string]string{
		"a.go":  "uno\r\n2\n\nthree",
		"a.md":  "uno   \r\n2  \n \nthree\t",
		"a.MDX": "uno   \r\n2  \n \nthree\t",
	} {
		m, err := mapClaude(t, env, "Edit", `{"file_path":"`+path+`","old_string":"one","new_string":"uno   \r\n2  \n \nthree\t"}`)
		if err != nil {
			t.Fatal(err)
		}
		in := m.Input.(handlers.EditTextInput)
		if got := in.Edits[0].NewString; got != want || !in.FoldQuotes {
			t.Errorf("%s: new_string %q (fold quotes %v), want %q and folding", path, got, in.FoldQuotes, want)
		}
	}
}

// TestBashTimeoutCapped: a Bash timeout past 600000 ms runs with 600000
// ms (600 s), as Claude Code caps it, rather than being refused; none
// gives 120 s.
func TestBashTimeoutCapped(t *testing.T) {
	for raw, want := range map[string]int{
		`{"command":"echo ok","timeout":900000}`: 600,
		`{"command":"echo ok","timeout":1500}`:   2,
		`{"command":"echo ok"}`:                  120,
	} {
		m, err := decodeMapped(t, "Bash", raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if got := m.Input.(handlers.ExecuteCommandInput).Timeout; got != want {
			t.Errorf("%s: timeout %d s, want %d", raw, got, want)
		}
	}
}
