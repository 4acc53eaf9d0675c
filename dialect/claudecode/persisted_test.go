package claudecode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
)

// seqOutput is what `seq 1 n` writes.
func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// savedAnswer is execute_command's answer with save_over: the first
// bytes of the output, then the note naming the file.
func savedAnswer(head string, size int64, path string) tool.Result {
	return tool.Result{Content: []api.Content{api.TextContent(head),
		api.TextContent(fmt.Sprintf("The whole output (%d bytes) is saved to %s", size, path))}}
}

// TestPersistedOutputForm: a saved long output is answered in Claude
// Code 2.1.197's form, as the conformance harness recorded it for `seq 1
// 20000`: the size in KB of 1024 with one decimal, the path, a preview
// of the first 2000 characters cut back to a line end, "...".
func TestPersistedOutputForm(t *testing.T) {
	out := seqOutput(20000)
	res, ok := persistedOutput(savedAnswer(out[:bashOutputLimit], int64(len(out)), "/o/s1/tool-results/b1.txt"))
	if !ok {
		t.Fatal("the saved output was not recognised")
	}
	preview := strings.TrimSuffix(seqOutput(527), "\n")
	want := "<persisted-output>\nOutput too large (106.3KB). Full output saved to: /o/s1/tool-results/b1.txt\n\n" +
		"Preview (first 2KB):\n" + preview + "\n...\n</persisted-output>"
	if got := res.LastText(); got != want {
		t.Errorf("got  %.300q\nwant %.300q", got, want)
	}
	if len(res.Content) != 1 || res.IsError {
		t.Errorf("result %d blocks, is_error %v; want one text", len(res.Content), res.IsError)
	}
}

func TestPersistedOutputPreview(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		more           bool
	}{
		{"short, whole", "\n\n  \nabc\n\n", "abc", false},
		{"line end past half: cut there", strings.Repeat("x", 1500) + "\n" + strings.Repeat("y", 1000), strings.Repeat("x", 1500), true},
		{"line end early: cut at 2000", "a\n" + strings.Repeat("z", 3000), "a\n" + strings.Repeat("z", 1998), true},
		{"UTF-16 units: 2000 counts two per astral character", strings.Repeat("😀", 1500), strings.Repeat("😀", 1000), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ok := persistedOutput(savedAnswer(tc.in, 40000, "/f"))
			if !ok {
				t.Fatal("not recognised")
			}
			text := res.LastText()
			_, body, _ := strings.Cut(text, "Preview (first 2KB):\n")
			want := tc.want
			wantEnd := "\n</persisted-output>"
			if tc.more {
				wantEnd = "\n...\n</persisted-output>"
			}
			if body != want+wantEnd {
				t.Errorf("preview %.80q... (%d bytes), want %.80q... (%d bytes)", body, len(body), want+wantEnd, len(want+wantEnd))
			}
		})
	}
	if _, ok := persistedOutput(tool.TextResult("plain output")); ok {
		t.Error("an answer without the note counted as saved")
	}
}

func TestJSSize(t *testing.T) {
	for n, want := range map[int64]string{
		1000: "1000 bytes", 1024: "1KB", 2000: "2KB", 1280: "1.3KB", 108894: "106.3KB",
		64 << 20: "64MB", 3 << 30: "3GB", 1536 << 10: "1.5MB",
	} {
		if got := jsSize(n); got != want {
			t.Errorf("jsSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestBackgroundNamesItsOutputFile: run_in_background's answer names the
// file execute_command says holds the job's output, in Claude Code's words.
func TestBackgroundNamesItsOutputFile(t *testing.T) {
	res := backgroundStarted(tool.Result{Content: []api.Content{
		api.TextContent("Started in the background as job b7. It runs until it exits, is killed, or the session ends."),
		api.TextContent("Its output file (written when read): /o/s1/tasks/b7.output"),
	}}, "")
	want := "Command running in background with ID: b7. Output is being written to: /o/s1/tasks/b7.output. " +
		"You will be notified when it completes. To check interim output, use Read on that file path."
	if got := res.LastText(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
