package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/toolgate/toolgate/api"
)

// Workspace is the one directory every call works in. All file access goes
// through Root, which refuses paths that leave the directory, including
// through symlinks, with no window between a check and the use.
type Workspace struct {
	Dir  string
	Root *os.Root

	edits editLocks // per-file edit locks; see LockForEdit
	links linkIndex // names of files with several; see LinkNames

	// dir is Root's own directory, opened through Root, whose
	// descriptor OpenPlain resolves paths beneath; nil when it could
	// not be opened (OpenPlain then always declines).
	dir   *os.File
	dirFd int
	// noPlain is set once the kernel has refused openat2 itself (too
	// old, or a seccomp filter): OpenPlain declines from then on
	// without asking again.
	noPlain atomic.Bool
	// nowait is set when the workspace's directory is on a local file
	// system: OpenPlain then tries the open, fstat and reads that
	// cannot wait without telling the scheduler (internal/nowait).
	nowait bool
}

// OpenWorkspace opens dir as the workspace.
func OpenWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	ws := &Workspace{Dir: abs, Root: root}
	if d, err := root.Open("."); err == nil {
		ws.dir, ws.dirFd = d, int(d.Fd())
		ws.nowait = onLocalFileSystem(ws.dirFd)
	}
	return ws, nil
}

// Close releases the workspace's directory handles.
func (w *Workspace) Close() error {
	if w.dir != nil {
		w.dir.Close()
	}
	return w.Root.Close()
}

// maxPathLen bounds a path before any system call sees it.
const maxPathLen = 4096

// Rel turns a path from a tool input into a clean slash-separated path
// relative to the workspace, "." for the workspace itself. Absolute paths
// are accepted only inside the workspace. This is a lexical pre-filter that
// gives clear messages; os.Root still decides every access.
func (w *Workspace) Rel(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", Errorf(api.ToolCodeInvalidPath, "path contains a NUL byte")
	}
	if len(p) > maxPathLen {
		return "", Errorf(api.ToolCodeInvalidPath, "path is %d bytes long; the limit is %d", len(p), maxPathLen)
	}
	if p == "" {
		p = "."
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		rel, err := filepath.Rel(w.Dir, filepath.Clean(native))
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			return "", outsideError(p)
		}
		native = rel
	}
	clean := filepath.Clean(native)
	if clean != "." && !filepath.IsLocal(clean) {
		return "", outsideError(p)
	}
	return filepath.ToSlash(clean), nil
}

func outsideError(p string) error {
	return Errorf(api.ToolCodeOutside, "path %q is outside the workspace; only paths inside it can be used", p)
}

// Display is how a workspace-relative path is shown to the model.
func Display(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
