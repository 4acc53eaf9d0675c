package claudecode

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/conformance"
)

// TestOutputFilesConfined runs toolgate (sandbox on, no Claude Code
// needed) and checks what the claude_code dialect's output files may
// and may not do: the session that saved a long output reads it with
// Read, another session's Read is refused, a command (sandboxed) can
// neither read nor change the file, a background job's file reads as
// its output, and the files go when the session is deleted.
func TestOutputFilesConfined(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ws := workspace(t)
	outputDir := outsideTmp(t)
	tg := conformance.StartToolgate(t, ws, map[string]any{
		"policy": map[string]any{"allow_bypass_permissions": true},
		"tools":  map[string]any{"commands": map[string]any{"output_dir": outputDir}},
	})
	session := func() string {
		sid, err := tg.NewSession(ctx, map[string]any{"dialect": "claude_code", "mode": "bypassPermissions"})
		if err != nil {
			t.Fatal(err)
		}
		return sid
	}
	a, b := session(), session()
	n := 0
	call := func(sid, name string, input map[string]any) (string, bool) {
		t.Helper()
		n++
		r, err := tg.Call(ctx, sid, "toolu_out"+string(rune('a'+n)), name, input)
		if err != nil {
			t.Fatal(err)
		}
		return resultText(r), r.IsError
	}
	// approved runs a command the policy puts before the user (it names
	// a path outside the workspace), approving it.
	approved := func(sid, command string) (string, bool) {
		t.Helper()
		n++
		id := "toolu_out" + string(rune('a'+n))
		type answer struct {
			r   conformance.Result
			err error
		}
		done := make(chan answer, 1)
		go func() {
			r, err := tg.Call(ctx, sid, id, "Bash", map[string]any{"command": command})
			done <- answer{r, err}
		}()
		decision := map[string]any{"decision": "approve"}
		for tg.Do(ctx, http.MethodPost, "/v1/sessions/"+sid+"/calls/"+id+"/decision", decision, nil, http.StatusOK) != nil {
			if ctx.Err() != nil {
				t.Fatalf("%s never awaited approval", command)
			}
			time.Sleep(10 * time.Millisecond)
		}
		a := <-done
		if a.err != nil {
			t.Fatal(a.err)
		}
		return resultText(a.r), a.r.IsError
	}

	text, _ := call(a, "Bash", map[string]any{"command": "seq 1 20000"})
	if strings.HasPrefix(text, "The command was not run") {
		t.Skipf("no command sandbox on this machine: %s", text)
	}
	m := savedFile.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no saved file in the answer to a long output: %.300q", text)
	}
	saved := m[1]
	if !strings.HasPrefix(saved, outputDir+"/") || strings.HasPrefix(saved, ws) {
		t.Fatalf("saved to %s, want a file under the output directory %s, outside the workspace", saved, outputDir)
	}
	before, err := os.ReadFile(saved)
	if err != nil || len(before) != 108894 {
		t.Fatalf("the saved file: %d bytes, %v; want seq's 108894", len(before), err)
	}
	tail := "19999\t19999\n20000\t20000\n20001\t"
	if got, isErr := call(a, "Read", map[string]any{"file_path": saved, "offset": 19999}); isErr || got != tail {
		t.Errorf("the session's own Read: %q (error %v), want %q", got, isErr, tail)
	}
	// b has output files of its own: its directory exists.
	call(b, "Bash", map[string]any{"command": "seq 1 30000"})
	if got, isErr := call(b, "Read", map[string]any{"file_path": saved, "offset": 19999}); !isErr || strings.Contains(got, "19999") {
		t.Errorf("another session's Read of the file: %q (error %v), want a refusal", got, isErr)
	}

	// Sandboxed commands of the same session: the file is masked.
	if got, isErr := approved(a, "cat "+saved); !isErr || strings.Contains(got, "19999") {
		t.Errorf("a command read the file: %.200q (error %v)", got, isErr)
	}
	approved(a, "echo changed > "+saved+"; rm -f "+saved)
	if after, err := os.ReadFile(saved); err != nil || string(after) != string(before) {
		t.Errorf("a command changed the file: %d bytes, %v", len(after), err)
	}

	text, _ = call(a, "Bash", map[string]any{"command": "echo started", "run_in_background": true})
	m = backgroundFile.FindStringSubmatch(text)
	id := backgroundID.FindStringSubmatch(text)
	if m == nil || id == nil {
		t.Fatalf("no output file in the answer to a background command: %q", text)
	}
	call(a, "TaskOutput", map[string]any{"task_id": id[1], "block": true, "timeout": 30000})
	if got, isErr := call(a, "Read", map[string]any{"file_path": m[1]}); isErr || got != "1\tstarted\n2\t" {
		t.Errorf("the job's output file: %q (error %v)", got, isErr)
	}
	if got, isErr := call(b, "Read", map[string]any{"file_path": m[1]}); !isErr || strings.Contains(got, "started") {
		t.Errorf("another session's Read of the job's file: %q (error %v), want a refusal", got, isErr)
	}

	if err := tg.Do(ctx, http.MethodDelete, "/v1/sessions/"+a, nil, nil, http.StatusNoContent); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(filepath.Dir(saved))
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deleted session's output files are still in %s", dir)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// outsideTmp is a new directory outside /tmp when the user's cache
// directory is (a command's /tmp is private to it, which would hide
// the output files even without the sandbox's mask of them), removed
// when the test ends; else a temporary directory.
func outsideTmp(t *testing.T) string {
	base, err := os.UserCacheDir()
	if err != nil || strings.HasPrefix(base, os.TempDir()) || strings.HasPrefix(base, "/tmp/") {
		return t.TempDir()
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(base, "toolgate-outputs-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
