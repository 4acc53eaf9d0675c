package handlers

import "testing"

// TestPatchFilesAddReplaces: with add_replaces an Add section replaces a
// file that exists, as the Codex CLI's apply_patch does; without it the
// patch is refused and the file kept, as apply_patch refuses it.
func TestPatchFilesAddReplaces(t *testing.T) {
	const p = "*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch"
	for _, tc := range []struct {
		replaces bool
		want     string
		code     string
	}{{true, "new\n", ""}, {false, "old\n", CodeFileExists}} {
		ws := workspaceWith(t, map[string]string{"a.txt": "old\n"})
		_, err := applyPatch(editCall(ws, "t"), p, tc.replaces, false)
		if got := toolCode(t, err); got != tc.code {
			t.Errorf("add_replaces=%v: code %q (%v), want %q", tc.replaces, got, err, tc.code)
		}
		if got := readWS(t, ws, "a.txt"); got != tc.want {
			t.Errorf("add_replaces=%v: a.txt = %q, want %q", tc.replaces, got, tc.want)
		}
	}
}
