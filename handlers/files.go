package handlers

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator"
)

// openRegular opens a regular file of the workspace for reading.
func openRegular(ws *coordinator.Workspace, p string) (string, *os.File, error) {
	rel, err := ws.Rel(p)
	if err != nil {
		return "", nil, err
	}
	f, err := ws.Root.Open(rel)
	if err != nil {
		return rel, nil, fileError(rel, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return rel, nil, fileError(rel, err)
	}
	if st.IsDir() {
		f.Close()
		return rel, nil, coordinator.Errorf(api.ToolCodeIsDirectory, "%s is a directory; use list_files to see what it holds.", rel)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return rel, nil, coordinator.Errorf(api.ToolCodeNotRegular, "%s is not a regular file.", rel)
	}
	return rel, f, nil
}

// fileError turns a file system error into a message the model can act on,
// without leaking absolute paths of the server's machine.
func fileError(rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return coordinator.Errorf(api.ToolCodeNotFound, "File not found: %s", coordinator.Display(rel))
	case errors.Is(err, fs.ErrPermission):
		return coordinator.Errorf(api.ToolCodePermission, "Permission denied: %s", coordinator.Display(rel))
	case isEscape(err):
		return coordinator.Errorf(api.ToolCodeOutside, "Path %s leads outside the workspace (through a symlink or ..); only paths inside it can be used.", coordinator.Display(rel))
	case errors.Is(err, syscall.ENAMETOOLONG):
		return coordinator.Errorf(api.ToolCodeInvalidPath, "Path is too long: %.80s...", rel)
	case errors.Is(err, syscall.ENOTDIR):
		return coordinator.Errorf(api.ToolCodeNotFound, "File not found: %s (a parent is not a directory)", coordinator.Display(rel))
	case errors.Is(err, syscall.ELOOP):
		return coordinator.Errorf(api.ToolCodeOutside, "Path %s goes through too many symlinks.", coordinator.Display(rel))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return coordinator.Errorf(api.ToolCodeIOError, "Cannot access %s: %v", coordinator.Display(rel), pe.Err)
	}
	return coordinator.Errorf(api.ToolCodeIOError, "Cannot access %s: %v", coordinator.Display(rel), err)
}

// isEscape reports os.Root's refusal of a path that leaves the root.
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}
