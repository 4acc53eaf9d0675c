package handlers

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/dialect/cline"

	"github.com/toolgate/toolgate/coordinator"
	"github.com/toolgate/toolgate/coordinator/tool"
)

func TestWriteToFile(t *testing.T) {
	long := strings.Repeat("line\n", 500)
	tests := []struct {
		name      string
		tool      string
		existing  map[string]string
		path      string
		content   string
		check     string // file whose content is compared with want
		want      string
		wantCode  string
		wantText  []string
		wantNoTmp bool
	}{
		{name: "create with parents", path: "a/b/new.txt", content: "hello\n", check: "a/b/new.txt", want: "hello\n",
			wantText: []string{"The content was successfully saved to a/b/new.txt.", "<final_file_content path=\"a/b/new.txt\">\nhello\n\n</final_file_content>"}},
		{name: "overwrite shows the file", existing: map[string]string{"f.txt": "a\nb\n"}, path: "f.txt", content: "a\nc\n",
			check: "f.txt", want: "a\nc\n", wantText: []string{"\na\nc\n\n</final_file_content>"}},
		{name: "CRLF kept", existing: map[string]string{"f.txt": "a\r\nb\r\n"}, path: "f.txt", content: "x\ny\n",
			check: "f.txt", want: "x\r\ny\r\n"},
		{name: "BOM kept", existing: map[string]string{"f.txt": "\uFEFFa\n"}, path: "f.txt", content: "b\n",
			check: "f.txt", want: "\uFEFFb\n"},
		{name: "code fence dropped", path: "f.py", content: "```python\nprint(1)\n```\n", check: "f.py", want: "print(1)"},
		{name: "closing fence alone dropped", path: "g.txt", content: "text\n```", check: "g.txt", want: "text"},
		{name: "fence inside kept", path: "h.md", content: "# T\n```\ncode\n```\nend\n", check: "h.md", want: "# T\n```\ncode\n```\nend\n"},
		{name: "same content", existing: map[string]string{"f.txt": "a\n"}, path: "f.txt", content: "a\n",
			check: "f.txt", want: "a\n", wantText: []string{"The content was successfully saved to f.txt."}},
		{name: "long content", path: "big.txt", content: long, check: "big.txt", want: long,
			wantText: []string{"saved to big.txt."}},
		{name: "failure leaves file untouched", existing: map[string]string{"f.txt": "keep\n"}, path: "f.txt/x", content: "new",
			check: "f.txt", want: "keep\n", wantCode: "not_found"},
		{name: "directory refused", existing: map[string]string{"d/x": "keep\n"}, path: "d", content: "new",
			check: "d/x", want: "keep\n", wantCode: "is_directory"},
		{name: "outside workspace", path: "../escape.txt", content: "x", check: "escape.txt", want: "<absent>", wantCode: "outside_workspace"},
		{name: "new_rule outside rules", tool: "new_rule", path: "rule.md", content: "x", check: "rule.md", want: "<absent>", wantCode: "outside_rules"},
		{name: "new_rule", tool: "new_rule", path: ".clinerules/r.md", content: "x", check: ".clinerules/r.md", want: "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspaceWith(t, tc.existing)
			res, err := writeToFile(editCall(ws, "toolu_1"), &WriteToFileInput{Path: tc.path, Content: new(tc.content)}, tc.tool == "new_rule", false)
			if got := toolCode(t, err); got != tc.wantCode {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.wantCode, err)
			}
			if got := readWS(t, ws, tc.check); got != tc.want {
				t.Errorf("%s = %.80q, want %.80q", tc.check, got, tc.want)
			}
			for _, w := range tc.wantText {
				if !strings.Contains(resultText(res), w) {
					t.Errorf("result %q does not contain %q", resultText(res), w)
				}
			}
			assertNoTemps(t, ws)
		})
	}
}

func TestWriteToFileKeepsMode(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"s.sh": "old\n"})
	p := filepath.Join(ws.Dir, "s.sh")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	if _, err := writeToFile(editCall(ws, "toolu_1"), &WriteToFileInput{Path: "s.sh", Content: new("new\n")}, false, false); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o750 {
		t.Errorf("mode = %v, want %v", got, os.FileMode(0o750))
	}
}

func TestWriteToFileRequireRead(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	cfg.RequireReadBeforeEdit = true
	ws := workspaceWith(t, map[string]string{"f.txt": "a\n"})
	call := &tool.Call{ToolUseID: "toolu_1", Workspace: ws, Files: coordinator.NewFileMemory(cfg), Texts: cline.Texts{}}
	t.Run("unread existing file refused", func(t *testing.T) {
		_, err := writeToFile(call, &WriteToFileInput{Path: "f.txt", Content: new("b\n")}, false, false)
		if got := toolCode(t, err); got != "read_required" {
			t.Fatalf("code = %q, want read_required", got)
		}
		if got := readWS(t, ws, "f.txt"); got != "a\n" {
			t.Errorf("f.txt = %q, want untouched", got)
		}
	})
	t.Run("new file allowed", func(t *testing.T) {
		if _, err := writeToFile(call, &WriteToFileInput{Path: "g.txt", Content: new("b\n")}, false, false); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("allowed after read", func(t *testing.T) {
		if _, err := readFile(context.Background(), call, &ReadFileInput{Path: "f.txt"}); err != nil {
			t.Fatal(err)
		}
		if _, err := writeToFile(call, &WriteToFileInput{Path: "f.txt", Content: new("b\n")}, false, false); err != nil {
			t.Fatal(err)
		}
	})
}

func TestWriteToFilePreviewWritesNothing(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"f.txt": "a\n"})
	tool := newWriteFile("write_to_file", tool.Env{Workspace: ws})
	diff, err := tool.Preview(context.Background(), editCall(ws, "toolu_1"), &WriteToFileInput{Path: "f.txt", Content: new("b\n")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "-a\n+b\n") {
		t.Errorf("preview = %q, want a diff from a to b", diff)
	}
	if got := readWS(t, ws, "f.txt"); got != "a\n" {
		t.Errorf("f.txt = %q after a preview, want untouched", got)
	}
}

// assertNoTemps fails if a temporary file of an atomic write is left.
func assertNoTemps(t *testing.T, ws *tool.Workspace) {
	t.Helper()
	_ = filepath.WalkDir(ws.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".toolgate") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestOmitFinalFileContent: with omit_final_file_content the edit tools'
// answer keeps Cline's fileEditWithoutUserChanges text but its
// <final_file_content> holds what Cline's ContextManager
// (handlePotentialFileChangeToolCalls, v4.0.12) leaves there when it drops
// an old edit's content: formatResponse.duplicateFileReadNotice between the
// tags. toolgate's diff still follows.
func TestOmitFinalFileContent(t *testing.T) {
	f := newFixtureConfig(t, nil, func(c *coordinator.Config) { c.OmitFinalFileContent = true })
	dropped := "<final_file_content path=\"a.txt\"> [[NOTE] This file read has been removed to save space in the context window. " +
		"Refer to the latest file read for the most up to date version of this file.] </final_file_content>"
	for _, step := range []struct {
		tool  string
		input map[string]any
	}{
		{"write_to_file", map[string]any{"path": "a.txt", "content": "secret body\n"}},
		{"replace_in_file", map[string]any{"path": "a.txt", "diff": "------- SEARCH\nsecret body\n=======\nother body\n+++++++ REPLACE"}},
	} {
		res, _ := f.call(t, step.tool, step.input)
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s = %+v, want Cline's one block", step.tool, res)
		}
		want := "The content was successfully saved to a.txt.\n\nHere is the full, updated content of the file that was saved:\n\n" + dropped + "\n\nIMPORTANT: "
		if got := res.Content[0].Text; !strings.HasPrefix(got, want) || strings.Contains(got, " body") {
			t.Errorf("%s saved text = %q, want it to start %q and hold no body", step.tool, got, want)
		}
	}
	// apply_patch's answer (ApplyPatchHandler.execute) drops the body too.
	res, _ := f.call(t, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n-other body\n+third body\n*** End Patch"})
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("apply_patch = %+v", res)
	}
	if want := "Successfully applied patch to the following files:\n\n" + dropped; res.Content[0].Text != want {
		t.Errorf("apply_patch text = %q, want %q", res.Content[0].Text, want)
	}
}
