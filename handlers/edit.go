package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/editdiff"
	"github.com/toolgate/toolgate/internal/atomicfile"
	"github.com/toolgate/toolgate/internal/fdpath"
)

// Limits of one edit.
const (
	// maxEditBytes bounds a file an edit reads whole: its old content is
	// diffed and kept for a revert.
	maxEditBytes = 16 << 20
	// maxDiffLines bounds the diff shown in a result or a preview.
	maxDiffLines = 200
)

// editTarget is a file about to be edited, as it is before the edit.
type editTarget struct {
	rel    string
	exists bool
	old    []byte
	state  tool.FileState
	// real is the absolute path of the file opened, read from its handle;
	// "" when it does not exist or the system cannot tell (realErr).
	real    string
	realErr error
	// stat is the opened file's, for its other names (hard links).
	stat *syscall.Stat_t
}

// loadTarget reads the file at p whole, or notes that it does not exist.
// Directories, devices and pipes are refused before anything opens them.
func loadTarget(ws *tool.Workspace, p string) (*editTarget, error) {
	rel, err := ws.Rel(p)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, tool.Errorf(api.ToolCodeIsDirectory, "path must name a file, not the workspace itself")
	}
	info, err := ws.Root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &editTarget{rel: rel}, nil
	case err != nil:
		return nil, fileError(rel, err)
	case info.IsDir():
		return nil, tool.Errorf(api.ToolCodeIsDirectory, "%s is a directory, not a file.", rel)
	case !info.Mode().IsRegular():
		return nil, tool.Errorf(api.ToolCodeNotRegular, "%s is not a regular file.", rel)
	case info.Size() > maxEditBytes:
		return nil, tooLarge(rel, info.Size())
	}
	f, err := ws.Root.Open(rel)
	if err != nil {
		return nil, fileError(rel, err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, fileError(rel, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	if err != nil {
		return nil, fileError(rel, err)
	}
	if len(data) > maxEditBytes {
		return nil, tooLarge(rel, int64(len(data)))
	}
	real, realErr := fdpath.Of(f)
	st, _ := info.Sys().(*syscall.Stat_t)
	return &editTarget{rel: rel, exists: true, old: data, state: tool.StateOf(data, info.ModTime()), real: real, realErr: realErr, stat: st}, nil
}

func tooLarge(rel string, size int64) error {
	return tool.Errorf(api.ToolCodeTooLarge, "%s is %d bytes; files over %d MB cannot be edited by this tool.", rel, size, maxEditBytes>>20)
}

// commit replaces the target's content atomically, then records the new
// state in the session and keeps the old content for a revert. It returns
// a note when the edit cannot be reverted. The stale-file guard must have
// passed before.
func commit(call *tool.Call, t *editTarget, content []byte) (string, error) {
	root := call.Workspace.Root
	if err := atomicfile.WriteVerified(root, t.rel, content, 0o644, t.verifier(call)); err != nil {
		return "", writeError(t.rel, err)
	}
	after := stateOnDisk(root, t.rel, content)
	call.Files.Remember(t.rel, after)
	call.Files.ForgetRead(clineReadKey(t.rel))
	kept := call.Files.KeepPrior(tool.Prior{
		ToolUseID: call.ToolUseID, Path: t.rel, Existed: t.exists, Content: t.old, After: after, Undo: t.undo(root),
	})
	if call.Files != nil && !kept {
		return "\n(The previous content is too large to keep, so this edit cannot be reverted.)", nil
	}
	return "", nil
}

// checkIgnored refuses the target when the ignore rules cover the file
// that was opened (a symlink swapped in after the policy's check).
func (t *editTarget) checkIgnored(call *tool.Call) error {
	if t.realErr != nil && call.HasIgnoreRules() {
		return tool.UnknownRealError(t.rel, t.realErr)
	}
	if t.real == "" {
		return nil
	}
	if err := call.CheckReal(t.real, t.rel, false); err != nil {
		return err
	}
	return call.CheckLinked(t.stat, t.rel) // a hard link: its content shows in the result
}

// verifier is the last check of a write: the ignore rules judge the file
// where the write will really land.
func (t *editTarget) verifier(call *tool.Call) func(string) error {
	if !call.HasIgnoreRules() {
		return nil // nothing to judge: spare the lookup, which may be unavailable
	}
	return func(real string) error { return call.CheckReal(real, t.rel, false) }
}

// undo puts the target back as it was before the edit.
func (t *editTarget) undo(root *os.Root) func([]byte) (tool.FileState, string, error) {
	return func(current []byte) (tool.FileState, string, error) {
		diff := diffText(t.rel, current, t.old)
		if !t.exists {
			if err := root.Remove(t.rel); err != nil {
				return tool.FileState{}, "", err
			}
			return tool.FileState{}, diff, nil
		}
		if err := atomicfile.Write(root, t.rel, t.old, 0o644); err != nil {
			return tool.FileState{}, "", err
		}
		return stateOnDisk(root, t.rel, t.old), diff, nil
	}
}

// stateOnDisk is the state of a file just written with content: its mtime
// comes from the disk, its hash from what was written.
func stateOnDisk(root *os.Root, rel string, content []byte) tool.FileState {
	st := tool.StateOf(content, time.Time{})
	if info, err := root.Stat(rel); err == nil {
		st.ModTime = info.ModTime()
	}
	return st
}

// writeError maps atomicfile's refusals to codes the model can act on.
func writeError(rel string, err error) error {
	var refused *tool.ToolError
	switch {
	case errors.As(err, &refused): // the write's own last check
		return refused
	case errors.Is(err, atomicfile.ErrEscapes):
		return tool.Errorf(api.ToolCodeOutside, "Path %s leads outside the workspace (through a symlink or ..); only paths inside it can be written.", rel)
	case errors.Is(err, atomicfile.ErrNotRegular):
		return tool.Errorf(api.ToolCodeNotRegular, "%s is not a regular file.", rel)
	}
	return fileError(rel, err)
}

// diffText is the unified diff from old to new, or a note when either side
// is not text.
func diffText(rel string, old, new []byte) string {
	if !isText(old) || !isText(new) {
		if bytes.Equal(old, new) {
			return ""
		}
		return "(binary content; no diff shown)\n"
	}
	return editdiff.Unified(rel, string(old), string(new), maxDiffLines)
}

func isText(b []byte) bool { return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b) }

// editResult is the confirmation a successful edit returns, as
// cline@2.18.0 answers it: its saved-content text with the whole file
// (clineFileSaved), the file named as the model named it (shownPath). A
// note (the edit cannot be reverted) follows in a block of its own. With
// omitBody the file's body is left out (clineDroppedContent).
func editResult(shown string, written []byte, modelContent string, omitBody bool, note string) tool.Result {
	saved := clineFileSaved(shown, clineFinalContent(shown, written, modelContent))
	if omitBody {
		saved = clineDroppedContent(saved)
	}
	res := tool.Result{Content: []api.Content{api.TextContent(saved)}}
	if note != "" {
		res.Content = append(res.Content, api.TextContent(strings.TrimSpace(note)))
	}
	return res
}

// shownPath is how Cline names an edited file in its answer: as the model
// gave it when that is an absolute path (native tool calls' absolutePath),
// else relative to the workspace.
func shownPath(given, rel string) string {
	if filepath.IsAbs(given) {
		return filepath.Clean(given)
	}
	return rel
}

// describeSize is "N lines, B bytes" of new content.
func describeSize(content []byte) string {
	return fmt.Sprintf("%d lines, %d bytes", countLines(string(content)), len(content))
}

// RestoreUndo rebuilds the undo of an edit whose prior content came back
// from the store after a restart: the same undo commit gave it.
// A file the call deleted comes back with mode 0644 (its mode is not kept).
func RestoreUndo(ws *tool.Workspace, p tool.Prior) func([]byte) (tool.FileState, string, error) {
	t := &editTarget{rel: p.Path, exists: p.Existed, old: p.Content}
	if !p.Deleted {
		return t.undo(ws.Root)
	}
	return func([]byte) (tool.FileState, string, error) {
		if err := atomicfile.Write(ws.Root, t.rel, t.old, 0o644); err != nil {
			return tool.FileState{}, "", err
		}
		return stateOnDisk(ws.Root, t.rel, t.old), diffText(t.rel, nil, t.old), nil
	}
}
