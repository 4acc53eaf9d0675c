package handlers

import (
	"context"
	"testing"
)

// TestEditTextFoldQuotes: with fold_quotes an old_string written with
// curly quotes finds the file's straight ones (and the other way round),
// and the file's own text is replaced; without it, it is not found.
func TestEditTextFoldQuotes(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, repl, want string
		fold                        bool
		code                        string
	}{
		{"curly for straight", "a := \"world\"\nb := 'x'\n", "a := \u201cworld\u201d", "A", "A\nb := 'x'\n", true, ""},
		{"straight for curly", "say \u2018hi\u2019 \u2014 \u201cok\u201d\n", "\u2018hi' \u2014 \"ok\"", "X", "say X\n", true, ""},
		{"not folded", "a := \"world\"\n", "a := \u201cworld\u201d", "A", "a := \"world\"\n", false, CodeNoMatch},
		{"folded, still absent", "a := \"world\"\n", "b := \u201cworld\u201d", "A", "a := \"world\"\n", true, CodeNoMatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspaceWith(t, map[string]string{"f.go": tc.file})
			_, err := editText(context.Background(), editCall(ws, "toolu_1"), &EditTextInput{Path: "f.go",
				Edits: []TextEdit{{OldString: tc.old, NewString: tc.repl}}, FoldQuotes: tc.fold})
			if got := toolCode(t, err); got != tc.code {
				t.Fatalf("code %q, want %q (%v)", got, tc.code, err)
			}
			if got := readWS(t, ws, "f.go"); got != tc.want {
				t.Errorf("f.go = %q, want %q", got, tc.want)
			}
		})
	}
}
