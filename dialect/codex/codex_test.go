package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
)

// mapCall decodes raw as the named codex tool's input and maps it, in a
// workspace of its own.
func mapCall(t *testing.T, name, raw string) (tool.Mapping, tool.MapEnv, error) {
	t.Helper()
	ws, err := tool.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := tool.MapEnv{Workspace: ws, Has: func(string) bool { return true }}
	for _, dt := range Dialect().Tools {
		if dt.Name == name {
			in := dt.NewInput()
			if err := json.Unmarshal([]byte(raw), in); err != nil {
				t.Fatal(err)
			}
			m, err := dt.Map(env, in)
			return m, env, err
		}
	}
	t.Fatalf("the codex dialect has no tool %s", name)
	return tool.Mapping{}, env, nil
}

// code is a mapping error's tool code.
func code(err error) string {
	var te *tool.ToolError
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

// codexExec is the layout of Codex's exec_command output, with the chunk
// id and the wall time as patterns.
func codexExec(status string, tokens, output string) *regexp.Regexp {
	return regexp.MustCompile(`^Chunk ID: [0-9a-f]{6}\nWall time: [0-9]+\.[0-9]{4} seconds\n` + regexp.QuoteMeta(status) +
		`\nOriginal token count: ` + tokens + `\nOutput:\n` + regexp.QuoteMeta(output) + `$`)
}

// TestExecCommand: exec_command runs as execute_command in its workdir,
// and its result reads as Codex's unified exec output: exit code, token
// count (four bytes a token) and the output as the command wrote it.
func TestExecCommand(t *testing.T) {
	m, _, err := mapCall(t, "exec_command", `{"cmd":"ls; exit 3","workdir":"src","tty":false,"yield_time_ms":1000}`)
	if err != nil || m.Tool != "execute_command" {
		t.Fatalf("mapping %+v, %v", m, err)
	}
	// The input as the coordinator hands it on: JSON.
	raw, _ := json.Marshal(m.Input)
	if want := `{"command":"ls; exit 3","login":true,"requires_approval":false,"cwd":"src","background":true,"yield_ms":1000}`; string(raw) != want {
		t.Errorf("execute_command input %s, want %s", raw, want)
	}
	for _, tc := range []struct {
		text, code string
		want       *regexp.Regexp
	}{
		{"Command executed successfully (exit code 0).\nOutput:\nhello\n", "", codexExec("Process exited with code 0", "2", "hello\n")},
		{"Command executed successfully (exit code 0).\nOutput:\nabc", "", codexExec("Process exited with code 0", "1", "abc")},
		{"Command failed with exit code 3.\nOutput:\nmain.go\n", api.ToolCodeExitStatus, codexExec("Process exited with code 3", "2", "main.go\n")},
		{"Command executed successfully (exit code 0).", "", codexExec("Process exited with code 0", "0", "")},
	} {
		got := m.Result(tool.TextResult(tc.text), tc.code).LastText()
		if !tc.want.MatchString(got) {
			t.Errorf("%q became %q, want %v", tc.text, got, tc.want)
		}
	}
	// A refusal before the command ran keeps toolgate's words.
	refused := tool.ErrorResult("The path ../x is outside the workspace.")
	if got := m.Result(refused, api.ToolCodeOutside).LastText(); got != refused.LastText() {
		t.Errorf("refusal became %q", got)
	}
	// A workdir that is missing or not a directory reads as Codex's
	// failed spawn (measured: internal/conformance/codex).
	for code, cause := range map[string]string{
		api.ToolCodeNotFound:     "No such file or directory (os error 2)",
		api.ToolCodeNotDirectory: "Not a directory (os error 20)",
	} {
		res := m.Result(tool.ErrorResult("File not found: nope"), code)
		want := `exec_command failed: CreateProcess { message: "Rejected(\"Failed to create unified exec process: ` + cause + `\")" }`
		if got := res.LastText(); got != want || !res.IsError {
			t.Errorf("%s: %q (error %v), want %q", code, got, res.IsError, want)
		}
	}
}

// TestExecCommandBudget: max_output_tokens keeps the output's head and
// tail after Codex's warning, counting the tokens left out; the token
// count is the whole output's.
func TestExecCommandBudget(t *testing.T) {
	m, _, err := mapCall(t, "exec_command", `{"cmd":"seq 100","max_output_tokens":2}`)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Repeat("x", 40) + "\n"
	got := m.Result(tool.TextResult("Command executed successfully (exit code 0).\nOutput:\n"+out), "").LastText()
	if !strings.Contains(got, "Original token count: 11\n") || !strings.HasSuffix(got, "Output:\nWarning: truncated output (original token count: 11)\nTotal output lines: 1\n\nxxxx…9 tokens truncated…xxx\n") {
		t.Errorf("budgeted output %q", got)
	}
}

// TestExecCommandYields: exec_command runs as a background job that
// yields after yield_time_ms (clamped to Codex's 250-30000, 10000 by
// default), under a terminal with tty; a job still running reads as
// Codex's session, its number the session id.
func TestExecCommandYields(t *testing.T) {
	for args, want := range map[string]string{
		`{"cmd":"python3 -i","tty":true,"yield_time_ms":50}`: `{"command":"python3 -i","login":true,"requires_approval":false,"background":true,"tty":true,"yield_ms":250}`,
		`{"cmd":"sleep 9"}`:                        `{"command":"sleep 9","login":true,"requires_approval":false,"background":true,"yield_ms":10000}`,
		`{"cmd":"sleep 99","yield_time_ms":99000}`: `{"command":"sleep 99","login":true,"requires_approval":false,"background":true,"yield_ms":30000}`,
	} {
		m, _, err := mapCall(t, "exec_command", args)
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := json.Marshal(m.Input); string(raw) != want {
			t.Errorf("%s: execute_command input %s, want %s", args, raw, want)
		}
	}
	m, _, _ := mapCall(t, "exec_command", `{"cmd":"cat"}`)
	got := m.Result(tool.TextResult(handlers.JobRunningText("job_12", ">>> ")), "").LastText()
	if want := codexExec("Process running with session ID 12", "1", ">>> "); !want.MatchString(got) {
		t.Errorf("running: %q, want %v", got, want)
	}
}

// TestApplyPatch: apply_patch's text goes to patch_files with Add
// replacing a file, and the answer lists the files as Codex does: added,
// modified (a move under its new path), deleted.
func TestApplyPatch(t *testing.T) {
	p := "*** Begin Patch\n*** Delete File: old.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+y\n*** Add File: new.txt\n+n\n*** Update File: c.txt\n@@\n-p\n+q\n*** End Patch"
	raw, _ := json.Marshal(map[string]string{"input": p})
	m, _, err := mapCall(t, "apply_patch", string(raw))
	if err != nil || m.Tool != "patch_files" {
		t.Fatalf("mapping %+v, %v", m, err)
	}
	if in := m.Input.(handlers.PatchFilesInput); in.Patch != p || !in.AddReplaces {
		t.Errorf("patch_files input %+v", in)
	}
	got := m.Result(tool.TextResult("Successfully applied patch"), "").LastText()
	want := regexp.MustCompile(`^Exit code: 0\nWall time: [0-9]+\.[0-9] seconds\nOutput:\nSuccess\. Updated the following files:\nA new\.txt\nM b\.txt\nM c\.txt\nD old\.txt\n$`)
	if !want.MatchString(got) {
		t.Errorf("success = %q", got)
	}
}

// TestApplyPatchFailures: a hunk that does not match and a file to
// update that is missing read as Codex's verification failures; any other
// refusal keeps toolgate's text after Codex's prefix.
func TestApplyPatchFailures(t *testing.T) {
	p := "*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-no such line\n+x\n*** Delete File: old.txt\n*** End Patch"
	raw, _ := json.Marshal(map[string]string{"input": p})
	m, env, err := mapCall(t, "apply_patch", string(raw))
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(env.Workspace.Dir, "notes.txt")
	for _, tc := range []struct{ text, code, want string }{
		{"*** Update File: notes.txt: hunk 1 (patch line 3): not found", api.ToolCodeHunkFailed,
			"apply_patch verification failed: Failed to find expected lines in " + abs + ":\nalpha\nno such line"},
		{"*** Update File: notes.txt: the file does not exist; use *** Add File: to create it.", api.ToolCodeNotFound,
			"apply_patch verification failed: Failed to read file to update " + abs + ": No such file or directory (os error 2)"},
		{"*** Delete File: old.txt: the file does not exist. No file was changed.", api.ToolCodeNotFound,
			"apply_patch verification failed: Failed to read " + filepath.Join(env.Workspace.Dir, "old.txt") + ": No such file or directory (os error 2)"},
		{"invalid patch: no *** Begin Patch", api.ToolCodeInvalidPatch, "apply_patch verification failed: invalid patch: no *** Begin Patch"},
		{"Cancelled: parallel tool call c1 errored", api.ToolCodeCancelled, "Cancelled: parallel tool call c1 errored"},
	} {
		res := m.Result(tool.ErrorResult(tc.text), tc.code)
		if got := res.LastText(); got != tc.want || !res.IsError {
			t.Errorf("%s: %q (error %v), want %q", tc.code, got, res.IsError, tc.want)
		}
	}
}

// TestViewImage: view_image reads the image with read_file and answers
// the image alone; a missing file reads as Codex's.
func TestViewImage(t *testing.T) {
	m, env, err := mapCall(t, "view_image", `{"path":"shot.png"}`)
	if err != nil || m.Tool != "read_file" || m.Input.(handlers.ReadFileInput).Path != "shot.png" {
		t.Fatalf("mapping %+v, %v", m, err)
	}
	want := "unable to locate image at `" + filepath.Join(env.Workspace.Dir, "shot.png") + "`: No such file or directory (os error 2)"
	if got := m.Result(tool.ErrorResult("not found"), api.ToolCodeNotFound).LastText(); got != want {
		t.Errorf("missing image: %q", got)
	}
	// An image comes back alone, as Codex's view_image answers.
	img := api.Content{Type: api.TypeImage, Source: &api.ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgo="}}
	res := m.Result(tool.Result{Content: []api.Content{img, api.TextContent("Successfully read image")}}, "")
	if len(res.Content) != 1 || res.Content[0].Source != img.Source || res.IsError {
		t.Errorf("image result %+v, want the image alone", res)
	}
}

// TestWriteStdinAndClientTools: write_stdin writes to the job its
// session id names, polling 250 ms by default; an unknown session and a
// session without stdin read as Codex's errors. The tools Codex serves
// itself are refused as not_owned, each with a message saying why.
func TestWriteStdinAndClientTools(t *testing.T) {
	m, _, err := mapCall(t, "write_stdin", `{"session_id":7,"chars":"y\n"}`)
	if err != nil || m.Tool != "job_stdin" {
		t.Fatalf("mapping %+v, %v", m, err)
	}
	if in := m.Input.(handlers.JobStdinInput); in.ID != "job_7" || in.Input != "y\n" || in.Wait != 250 {
		t.Errorf("job_stdin input %+v", in)
	}
	if got := m.Result(tool.ErrorResult("No job with id job_7 in this session."), api.ToolCodeNotFound).LastText(); got != "write_stdin failed: Unknown process id 7" {
		t.Errorf("unknown session: %q", got)
	}
	closed := tool.ErrorResult("Cannot write to job job_7: " + tool.ErrNoStdin.Error())
	if got := m.Result(closed, api.ToolCodeFailed).LastText(); !strings.HasPrefix(got, "write_stdin failed: stdin is closed") {
		t.Errorf("no stdin: %q", got)
	}
	for _, name := range []string{"request_user_input", "get_goal", "create_goal", "update_goal", "tool_search"} {
		if _, _, err := mapCall(t, name, `{}`); code(err) != api.ToolCodeNotOwned || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestToolsMatchCodex: the dialect's tools carry the names and
// parameters of Codex's tools array as the conformance harness recorded
// it, so a model's calls decode.
func TestToolsMatchCodex(t *testing.T) {
	raw, err := os.ReadFile("../../internal/conformance/codex/testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var recorded []struct {
		Name       string `json:"name"`
		Parameters struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &recorded); err != nil {
		t.Fatal(err)
	}
	ours := map[string]*tool.DialectTool{}
	for _, dt := range Dialect().Tools {
		ours[dt.Name] = dt
	}
	for _, r := range recorded {
		dt := ours[r.Name]
		if dt == nil {
			if r.Name != "" {
				t.Errorf("codex's %s has no tool in the dialect", r.Name)
			}
			continue
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(dt.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		for p := range r.Parameters.Properties {
			if _, ok := schema.Properties[p]; !ok {
				t.Errorf("%s lacks codex's parameter %s", r.Name, p)
			}
		}
	}
}

// TestWriteStdinYield: a write waits yield_time_ms (250 by default, at
// most 30000); an empty poll waits 5000 to 300000, as Codex's
// write_stdin, so a poll sees a command that ends within 5 s end.
func TestWriteStdinYield(t *testing.T) {
	for args, want := range map[string]int{
		`{"session_id":1,"chars":"y\n"}`:                       250,
		`{"session_id":1,"chars":"y\n","yield_time_ms":99000}`: 30000,
		`{"session_id":1,"chars":"y\n","yield_time_ms":10}`:    250,
		`{"session_id":1,"chars":""}`:                          5000,
		`{"session_id":1,"yield_time_ms":250}`:                 5000,
		`{"session_id":1,"chars":"","yield_time_ms":20000}`:    20000,
		`{"session_id":1,"chars":"","yield_time_ms":400000}`:   300000,
	} {
		m, _, err := mapCall(t, "write_stdin", args)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Input.(handlers.JobStdinInput).Wait; got != want {
			t.Errorf("%s: waits %d ms, want %d", args, got, want)
		}
	}
}

// TestSignalUnderTerminal: a command under a terminal killed by a signal
// (Ctrl-C written to it) reads as Codex's PTY reports it, exit code 1;
// on pipes the signal is named.
func TestSignalUnderTerminal(t *testing.T) {
	killed := tool.TextResult("Command terminated by signal SIGINT.\nOutput:\n^C")
	for _, tc := range []struct {
		name, args, want string
	}{
		{"exec_command", `{"cmd":"cat","tty":true}`, "Process exited with code 1"},
		{"write_stdin", `{"session_id":3,"chars":"\u0003"}`, "Process exited with code 1"},
		{"exec_command", `{"cmd":"cat"}`, "Process terminated by signal SIGINT"},
	} {
		m, _, err := mapCall(t, tc.name, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Result(killed, api.ToolCodeExitStatus).LastText()
		if want := codexExec(tc.want, "1", "^C"); !want.MatchString(got) {
			t.Errorf("%s %s: %q, want %v", tc.name, tc.args, got, want)
		}
	}
}

// TestOutputPastBuffer: a yield whose output left bytes out between its
// head and tail (a note block counts them) reads as Codex's: the token
// count of the whole output, the omitted bytes in the warning where the
// line count would be, the marker inside the cut middle, the note gone.
func TestOutputPastBuffer(t *testing.T) {
	m, _, err := mapCall(t, "exec_command", `{"cmd":"seq 1 99999","max_output_tokens":5}`)
	if err != nil {
		t.Fatal(err)
	}
	out := "1\n2\n3\n4\n5\n6\n" + fmt.Sprintf(handlers.OmittedMarker, 1000) + "97\n98\n99\n"
	res := tool.Result{Content: []api.Content{
		api.TextContent("Command executed successfully (exit code 0).\nOutput:\n" + out),
		api.TextContent(fmt.Sprintf(handlers.OmittedNote, 1000)),
	}}
	got := m.Result(res, "")
	// 12 + 9 bytes kept and 1000 left out: 256 tokens; the middle cut
	// is out[10:len(out)-10], the marker's 28 bytes in its 29: 8 tokens.
	want := codexExec("Process exited with code 0", "256",
		"Warning: truncated output (original token count: 256)\n... 1000 bytes omitted ...\n\n1\n2\n3\n4\n5\n…8 tokens truncated…\n97\n98\n99\n")
	if len(got.Content) != 1 || !want.MatchString(got.LastText()) {
		t.Errorf("got %d blocks, %q; want %v", len(got.Content), got.LastText(), want)
	}
}
