package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/toolgate/toolgate/internal/fdpath"
	"github.com/toolgate/toolgate/internal/randid"
)

// ErrEscapes is returned, inside an *fs.PathError, for names or symlinks
// that this package itself sees leading out of the workspace. os.Root
// refuses the rest with its own *fs.PathError.
var ErrEscapes = errors.New("path escapes the workspace")

// ErrNotRegular is returned, inside an *fs.PathError, when the target is a
// directory, device, socket or pipe: replacing those is never an edit.
var ErrNotRegular = errors.New("not a regular file")

// maxLinks matches the symlink depth os.Root follows.
const maxLinks = 8

// Write atomically replaces (or creates) the file name inside root with
// data. name is workspace-relative, with slash or OS separators. Parent
// directories are created (0755 less umask). On error the target is
// unchanged and no temporary file is left behind.
func Write(root *os.Root, name string, data []byte, defaultPerm fs.FileMode) error {
	return write(root, name, data, defaultPerm, nil, nil)
}

// WriteVerified is Write with a last check on where the data will really
// land: verify gets the absolute path of the file to be replaced, its
// directory resolved from an open handle to it, and an error from verify
// aborts the write with nothing changed. The temporary file and the rename
// then go through that same directory handle, so a symlink swapped in
// after the check cannot send the write elsewhere. Where the system cannot
// name an open directory, the write is refused (ErrUnverified): pass a nil
// verify when there is nothing to check.
func WriteVerified(root *os.Root, name string, data []byte, defaultPerm fs.FileMode, verify func(real string) error) error {
	return write(root, name, data, defaultPerm, verify, nil)
}

// fault lets tests fail a write at a named stage ("open", "write", "sync",
// "rename") to prove the cleanup on each error path; nil in production.
type fault func(stage string) error

func (f fault) at(stage string) error {
	if f == nil {
		return nil
	}
	return f(stage)
}

func write(root *os.Root, name string, data []byte, defaultPerm fs.FileMode, verify func(string) error, inject fault) error {
	target, old, err := resolve(root, name)
	if err != nil {
		return err
	}
	dir, base := split(target)
	if base == "" || base == "." || base == ".." {
		return &fs.PathError{Op: "write", Path: name, Err: ErrNotRegular}
	}
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if verify != nil {
		// From here on every step is relative to the directory checked.
		sub, err := root.OpenRoot(dir)
		if err != nil {
			return err
		}
		defer sub.Close()
		if err := verifyIn(sub, base, verify, inject); err != nil {
			return err
		}
		root, dir, target = sub, ".", base
	}
	tmp, err := writeTemp(root, dir, base, data, defaultPerm.Perm(), old, inject)
	if err != nil {
		return err
	}
	if err := inject.at("rename"); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	if err := root.Rename(tmp, target); err != nil {
		_ = root.Remove(tmp)
		return err
	}
	if err := syncDir(root, dir); err != nil {
		return fmt.Errorf("file replaced but directory not synced: %w", err)
	}
	_, _ = cleanTemps(root, dir, base, StaleAge) // debris of earlier crashes; best effort
	return nil
}

// verifyIn calls verify with the real path of base inside dir. When the
// system cannot tell that path the write is refused: the caller's earlier
// checks judged a name, which a link swapped in since may redirect.
func verifyIn(dir *os.Root, base string, verify func(string) error, inject fault) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	real, err := fdpath.Of(d)
	_ = d.Close()
	if err == nil {
		err = inject.at("realpath")
	}
	if err != nil {
		return fmt.Errorf("%w: the real path of the directory written to cannot be read (%w)", ErrUnverified, err)
	}
	return verify(filepath.Join(real, base))
}

// ErrUnverified is a verified write refused because where it would land
// cannot be told.
var ErrUnverified = errors.New("write refused")

// resolve turns name into the workspace-relative path of the regular file
// to replace, following final-component symlinks, and returns that file's
// info (nil if it does not exist yet).
func resolve(root *os.Root, name string) (string, fs.FileInfo, error) {
	orig := name
	name = filepath.FromSlash(name)
	if name == "" || strings.HasSuffix(name, string(filepath.Separator)) {
		return "", nil, &fs.PathError{Op: "write", Path: orig, Err: fs.ErrInvalid}
	}
	if !filepath.IsLocal(name) {
		return "", nil, &fs.PathError{Op: "write", Path: orig, Err: ErrEscapes}
	}
	// The caller's name is cleaned lexically, as a model means "a/../b" as
	// "b"; symlink targets below are not, so os.Root resolves their "..".
	name = filepath.Clean(name)
	for range maxLinks + 1 {
		fi, err := root.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return name, nil, nil
		case err != nil:
			return "", nil, err
		case fi.Mode()&fs.ModeSymlink != 0:
			link, err := root.Readlink(name)
			if err != nil {
				return "", nil, err
			}
			if filepath.IsAbs(link) {
				return "", nil, &fs.PathError{Op: "write", Path: orig, Err: ErrEscapes}
			}
			// Not filepath.Join: its lexical Clean would resolve ".." before
			// os.Root sees it, which is wrong when a directory is a symlink.
			if d, _ := split(name); d != "." {
				link = d + string(filepath.Separator) + link
			}
			name = link
		case !fi.Mode().IsRegular():
			return "", nil, &fs.PathError{Op: "write", Path: orig, Err: ErrNotRegular}
		default:
			return name, fi, nil
		}
	}
	return "", nil, &fs.PathError{Op: "write", Path: orig, Err: errors.New("too many levels of symbolic links")}
}

// split cuts name at its last separator without cleaning it, so the
// temporary file and the target resolve through the same directory path.
func split(name string) (dir, base string) {
	i := len(name) - 1
	for i >= 0 && !os.IsPathSeparator(name[i]) {
		i--
	}
	if i < 0 {
		return ".", name
	}
	return name[:i], name[i+1:]
}

// writeTemp writes data to a new uniquely named file in dir and syncs it.
// O_EXCL makes the create fail rather than follow anything already there.
func writeTemp(root *os.Root, dir, base string, data []byte, perm fs.FileMode, old fs.FileInfo, inject fault) (string, error) {
	tmp := dir + string(filepath.Separator) + tempName(base)
	if old != nil {
		perm = old.Mode().Perm()
	}
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", err
	}
	err = inject.at("open")
	if err == nil {
		err = fill(f, data, old, inject)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// fill writes and syncs the temporary file, copying an existing file's
// mode exactly (the create above was narrowed by umask) and its owner.
func fill(f *os.File, data []byte, old fs.FileInfo, inject fault) error {
	if old != nil {
		if err := f.Chmod(old.Mode().Perm()); err != nil {
			return err
		}
		keepOwner(f, old)
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := inject.at("write"); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return inject.at("sync")
}

// tempName is hidden, unique and recognisable by IsTemp. The base is cut
// so the name stays under the usual 255-byte limit.
func tempName(base string) string {
	return "." + truncBase(base) + tempInfix + randid.Hex(8) + tempSuffix
}

// syncDir makes the rename itself durable. Windows cannot sync a directory
// handle; NTFS journals the rename instead.
func syncDir(root *os.Root, dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
