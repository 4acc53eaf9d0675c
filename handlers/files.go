package handlers

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers/search"
)

// openRegularAt opens a regular file of the workspace, rel as Rel
// cleaned it, for reading through os.Root, and refuses it when the
// ignore rules cover the file actually opened. It returns the file and
// what Stat said of it on opening.
//
// The file is opened non-blocking. A FIFO then opens at once (a blocking
// open waits for a writer, forever if none comes) and is refused as not
// regular; a regular file reads the same either way. It also spares Go's
// os package the four fcntl calls with which it makes a file descriptor
// non-blocking and, once the poller has refused a regular file, blocking
// again (BenchmarkOpenRegular, ./handlers/; docs/benchmarks.md).
func openRegularAt(call *tool.Call, rel string) (*os.File, fs.FileInfo, error) {
	f, err := call.Workspace.Root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fileError(rel, err)
	}
	st, err := f.Stat()
	if err != nil {
		err = fileError(rel, err)
	} else if err = refuseIrregular(rel, st); err == nil {
		err = call.CheckOpenedFile(f, st, rel)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// readable is a workspace file opened for reading: an *os.File, or a
// *tool.PlainFile (openReadable).
type readable interface {
	io.Reader
	io.Closer
}

// openReadable is openRegularAt for a caller that only reads the file
// through: a path that goes through no symlink is opened by
// Workspace.OpenPlain, in one system call and with no os.File
// (BenchmarkOpenPlain, ./handlers/; docs/benchmarks.md), every other
// path, and any failure, as openRegularAt opens it, so that os.Root's
// rules and its errors stay the only ones.
func openReadable(call *tool.Call, rel string) (readable, fs.FileInfo, error) {
	if f, err := call.Workspace.OpenPlain(rel); err == nil {
		st := f.Info()
		err := refuseIrregular(rel, st)
		if err == nil {
			err = call.CheckOpenedPlain(f, rel)
		}
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return f, st, nil
	}
	return openRegularAt(call, rel)
}

// refuseIrregular refuses a directory or any file that is not regular.
func refuseIrregular(rel string, st fs.FileInfo) error {
	if st.IsDir() {
		return tool.Errorf(api.ToolCodeIsDirectory, "%s is a directory; use list_files to see what it holds.", rel)
	}
	if !st.Mode().IsRegular() {
		return tool.Errorf(api.ToolCodeNotRegular, "%s is not a regular file.", rel)
	}
	return nil
}

// fileError turns a file system error into a message the model can act on,
// without leaking absolute paths of the server's machine.
func fileError(rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf(api.ToolCodeNotFound, "File not found: %s", tool.Display(rel))
	case errors.Is(err, fs.ErrPermission):
		return tool.Errorf(api.ToolCodePermission, "Permission denied: %s", tool.Display(rel))
	case isEscape(err):
		return tool.Errorf(api.ToolCodeOutside, "Path %s leads outside the workspace (through a symlink or ..); only paths inside it can be used.", tool.Display(rel))
	case errors.Is(err, syscall.ENAMETOOLONG):
		return tool.Errorf(api.ToolCodeInvalidPath, "Path is too long: %.80s...", rel)
	case errors.Is(err, syscall.ENOTDIR):
		return tool.Errorf(api.ToolCodeNotFound, "File not found: %s (a parent is not a directory)", tool.Display(rel))
	case errors.Is(err, syscall.ELOOP):
		return tool.Errorf(api.ToolCodeOutside, "Path %s goes through too many symlinks.", tool.Display(rel))
	}
	var xe *search.ExcludedError
	if errors.As(err, &xe) {
		// The words Cline uses for a blocked path (formatResponse.clineIgnoreError).
		return tool.Errorf(api.ToolCodeIgnored, "Access to %s (a link to %s) is blocked by the .clineignore file settings. "+
			"You must try to continue in the task without using this file, or ask the user to update the .clineignore file.",
			tool.Display(rel), xe.Real)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return tool.Errorf(api.ToolCodeIOError, "Cannot access %s: %v", tool.Display(rel), pe.Err)
	}
	return tool.Errorf(api.ToolCodeIOError, "Cannot access %s: %v", tool.Display(rel), err)
}

// isEscape reports os.Root's refusal of a path that leaves the root.
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}
