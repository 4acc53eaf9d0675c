package handlers

import (
	"context"
	"strings"
	"testing"
)

func block(search, replace string) string {
	return "------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n"
}

func TestReplaceInFile(t *testing.T) {
	tests := []struct {
		name     string
		file     string // content of f.txt; "<absent>" for none
		path     string
		diff     string
		want     string // f.txt afterwards
		wantCode string
		wantText []string // substrings of the result or error
	}{
		{name: "success", file: "a\nb\nc\n", path: "f.txt", diff: block("b\n", "B\n"), want: "a\nB\nc\n",
			wantText: []string{"The content was successfully saved to f.txt.", "<final_file_content path=\"f.txt\">\na\nB\nc\n\n</final_file_content>"}},
		{name: "two blocks out of order", file: "a\nb\nc\nd\n", path: "f.txt", diff: block("d\n", "D\n") + block("a\n", "A\n"),
			want: "A\nb\nc\nD\n", wantText: []string{"\nA\nb\nc\nD\n\n</final_file_content>"}},
		{name: "no match leaves file untouched", file: "a\nb\nc\n", path: "f.txt", diff: block("x\n", "y\n"),
			want: "a\nb\nc\n", wantCode: "diff_failed", wantText: []string{"The SEARCH block:\nx\n...does not match anything in the file.", "<file_content path=\"f.txt\">\na\nb\nc\n"}},
		{name: "second block failing applies none", file: "a\nb\nc\n", path: "f.txt", diff: block("a\n", "A\n") + block("zzz\n", "y\n"),
			want: "a\nb\nc\n", wantCode: "diff_failed", wantText: []string{"The SEARCH block:\nzzz\n...does not match"}},
		{name: "malformed diff leaves file untouched", file: "a\nb\n", path: "f.txt", diff: "------- SEARCH\na\n+++++++ REPLACE\n",
			want: "a\nb\n", wantCode: "diff_failed", wantText: []string{"malformed"}},
		{name: "CRLF kept, and shown as Cline shows it", file: "a\r\nb\r\nc\r\n", path: "f.txt", diff: block("b\n", "B\nB2\n"), want: "a\r\nB\r\nB2\r\nc\r\n",
			wantText: []string{"<final_file_content path=\"f.txt\">\na\r\nB\r\nB2\r\nc\r\n\n</final_file_content>"}},
		{name: "BOM kept", file: "\uFEFFa\nb\n", path: "f.txt", diff: block("a\n", "A\n"), want: "\uFEFFA\nb\n"},
		{name: "partial final line", file: "x\ny", path: "f.txt", diff: block("y\n", "z\n"), want: "x\nz"},
		{name: "empty search creates file", file: "<absent>", path: "f.txt", diff: block("", "new\n"), want: "new\n",
			wantText: []string{"saved to f.txt.", "\nnew\n\n</final_file_content>"}},
		{name: "missing file", file: "<absent>", path: "f.txt", diff: block("a\n", "b\n"), want: "<absent>", wantCode: "not_found",
			wantText: []string{"The SEARCH block:\na\n...does not match anything in the file.", "<file_content path=\"f.txt\">\n\n</file_content>"}},
		{name: "outside workspace", file: "a\n", path: "../f.txt", diff: block("a\n", "b\n"), want: "a\n", wantCode: "outside_workspace"},
		{name: "directory", file: "a\n", path: "d", diff: block("a\n", "b\n"), want: "a\n", wantCode: "is_directory"},
		{name: "binary file", file: "a\x00b\n", path: "f.txt", diff: block("a\n", "b\n"), want: "a\x00b\n", wantCode: "binary_file"},
		{name: "no-op edit", file: "a\n", path: "f.txt", diff: block("a\n", "a\n"), want: "a\n", wantText: []string{"The content was successfully saved to f.txt."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"d/keep": ""}
			if tc.file != "<absent>" {
				files["f.txt"] = tc.file
			}
			ws := workspaceWith(t, files)
			res, err := replaceInFile(editCall(ws, "toolu_1"), &ReplaceInFileInput{Path: tc.path, Diff: tc.diff}, false)
			if got := toolCode(t, err); got != tc.wantCode {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.wantCode, err)
			}
			if got := readWS(t, ws, "f.txt"); got != tc.want {
				t.Errorf("f.txt = %q, want %q", got, tc.want)
			}
			text := resultText(res)
			if err != nil {
				text += err.Error()
			}
			for _, w := range tc.wantText {
				if !strings.Contains(text, w) {
					t.Errorf("result %q does not contain %q", text, w)
				}
			}
		})
	}
}

func TestReplaceInFileStaleGuard(t *testing.T) {
	t.Run("refused after an outside change", func(t *testing.T) {
		ws := workspaceWith(t, map[string]string{"f.txt": "a\nb\n"})
		call := editCall(ws, "toolu_1")
		if _, err := readFile(context.Background(), call, &ReadFileInput{Path: "f.txt"}); err != nil {
			t.Fatal(err)
		}
		writeFileT(t, ws, "f.txt", "a\nb\nc\n")
		_, err := replaceInFile(call, &ReplaceInFileInput{Path: "f.txt", Diff: block("a\n", "A\n")}, false)
		if got := toolCode(t, err); got != "file_changed" {
			t.Fatalf("code = %q, want file_changed (err %v)", got, err)
		}
		if got := readWS(t, ws, "f.txt"); got != "a\nb\nc\n" {
			t.Errorf("f.txt = %q, want the outside change kept", got)
		}
	})
	t.Run("own writes keep the guard satisfied", func(t *testing.T) {
		ws := workspaceWith(t, map[string]string{"f.txt": "a\nb\n"})
		call := editCall(ws, "toolu_1")
		for _, d := range []string{block("a\n", "A\n"), block("b\n", "B\n")} {
			if _, err := replaceInFile(call, &ReplaceInFileInput{Path: "f.txt", Diff: d}, false); err != nil {
				t.Fatalf("edit: %v", err)
			}
		}
		if got := readWS(t, ws, "f.txt"); got != "A\nB\n" {
			t.Errorf("f.txt = %q, want %q", got, "A\nB\n")
		}
	})
}

func TestCompleteSoFar(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"cut mid-line", "------- SEARCH\na\n=======\nb", "------- SEARCH\na\n=======\n"},
		{"search still streaming", block("a\n", "b\n") + "------- SEARCH\nc\n", block("a\n", "b\n")},
		{"replace streaming", "------- SEARCH\na\n=======\nb\n", "------- SEARCH\na\n=======\nb\n"},
		{"nothing complete", "------- SEA", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := completeSoFar(tc.in); got != tc.want {
				t.Errorf("completeSoFar(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
