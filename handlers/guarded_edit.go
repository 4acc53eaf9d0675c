package handlers

import (
	"bytes"

	"github.com/toolgate/toolgate/coordinator/tool"
)

// fileEdit is what a guarded edit did to one file.
type fileEdit struct {
	// target is the file as it was before the edit.
	target *editTarget
	// content is what the file holds now.
	content []byte
	// unchanged is true when the new content equalled the old and nothing
	// was written.
	unchanged bool
	// note is a remark for the result, such as the edit being too large to
	// revert; empty when there is none.
	note string
}

// editFile is the one way a tool changes a workspace file; every edit tool
// goes through it (or through editFileLocked). Under the file's edit lock,
// shared by all sessions and entry points, it:
//   - loads the file (or notes that it does not exist) and refuses it if
//     the ignore rules cover the file actually opened,
//   - refuses if the session's last view of it is stale (file_changed) or
//     missing when reads are required (read_required),
//   - asks change for the new content, given the file as it is now,
//   - writes it atomically (checking the ignore rules once more on the
//     directory the write goes through), remembers the new state in the session and
//     keeps the old content for a revert.
//
// An error from change aborts the edit with nothing written. New content
// equal to an existing file's is not written (unchanged is set).
func editFile(call *tool.Call, path string, change func(t *editTarget) ([]byte, error)) (fileEdit, error) {
	rel, err := call.Workspace.Rel(path)
	if err != nil {
		return fileEdit{}, err
	}
	unlock := call.Workspace.LockForEdit(rel)
	defer unlock()
	return editFileLocked(call, path, change)
}

// editFileLocked is editFile for a caller that already holds the file's
// lock: a tool that changes several files in one call takes all their
// locks at once with call.Workspace.LockForEdit(paths...), then edits each
// with editFileLocked before unlocking.
func editFileLocked(call *tool.Call, path string, change func(t *editTarget) ([]byte, error)) (fileEdit, error) {
	t, err := loadTarget(call.Workspace, path)
	if err != nil {
		return fileEdit{}, err
	}
	if err := t.checkIgnored(call); err != nil {
		return fileEdit{}, err
	}
	if err := call.Files.CheckFresh(t.rel, t.state, t.exists); err != nil {
		return fileEdit{}, err
	}
	content, err := change(t)
	if err != nil {
		return fileEdit{}, err
	}
	if t.exists && bytes.Equal(t.old, content) {
		call.Files.Remember(t.rel, t.state)
		call.Files.ForgetRead(call.Texts.ReadKey(t.rel))
		return fileEdit{target: t, content: content, unchanged: true}, nil
	}
	note, err := commit(call, t, content)
	if err != nil {
		return fileEdit{}, err
	}
	return fileEdit{target: t, content: content, note: note}, nil
}
