package handlers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/internal/patch"
)

// TestApplyPatchStaleGuard: a file changed on disk since the session read
// it fails the whole patch with file_changed; the patch's other files are
// not written either.
func TestApplyPatchStaleGuard(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "one\n")
	f.write(t, "b.txt", "two\n")
	if res, _ := f.call(t, "read_file", ReadFileInput{Path: "b.txt"}); res.IsError {
		t.Fatal(text(res))
	}
	f.write(t, "b.txt", "two, changed elsewhere\n")
	p := "*** Begin Patch\n*** Update File: a.txt\n-one\n+ONE\n*** Update File: b.txt\n-two, changed elsewhere\n+TWO\n*** End Patch\n"
	res, rec := f.call(t, "apply_patch", ApplyPatchInput{Input: p})
	if rec.Error == nil || rec.Error.Code != api.ToolCodeFileChanged || !strings.Contains(text(res), "b.txt") {
		t.Fatalf("got %+v %q, want file_changed naming b.txt", rec.Error, text(res))
	}
	for name, want := range map[string]string{"a.txt": "one\n", "b.txt": "two, changed elsewhere\n"} {
		if b, _ := os.ReadFile(filepath.Join(f.dir, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
}

// TestApplyPatchRollback: when a write fails halfway through a patch, the
// files already written, created, moved and deleted are put back.
func TestApplyPatchRollback(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"a.txt": "a\n", "del.txt": "bye\n", "mv.txt": "moving\n", "plain": "a file, not a directory\n"})
	call := editCall(ws, "toolu_rb")
	load := func(rel string) *editTarget {
		tg, err := loadTarget(ws, rel)
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	plan := &patchPlan{changes: []patchChange{
		{op: patch.FileOp{Kind: patch.Update}, src: load("a.txt"), content: []byte("A\n")},
		{op: patch.FileOp{Kind: patch.Add}, src: load("new.txt"), content: []byte("new\n")},
		{op: patch.FileOp{Kind: patch.Delete}, src: load("del.txt")},
		{op: patch.FileOp{Kind: patch.Update, MoveTo: "moved.txt"}, src: load("mv.txt"), dst: load("moved.txt"), content: []byte("moved\n")},
		// "plain" is a file, so nothing can be written beneath it.
		{op: patch.FileOp{Kind: patch.Add}, src: &editTarget{rel: "plain/child.txt"}, content: []byte("x\n")},
	}}
	err := writePlan(call, plan)
	if code := toolCode(t, err); code != "io_error" || !strings.Contains(err.Error(), "plain/child.txt") || !strings.Contains(err.Error(), "taken back") {
		t.Fatalf("got %v, want io_error naming plain/child.txt and the rollback", err)
	}
	for name, want := range map[string]string{"a.txt": "a\n", "new.txt": "<absent>", "del.txt": "bye\n", "mv.txt": "moving\n", "moved.txt": "<absent>"} {
		if got := readWS(t, ws, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, ok := call.Files.Seen("a.txt"); ok {
		t.Error("the session remembers a write that was taken back")
	}
}
