package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A workspace directory the ignore rules exclude was masked with an empty
// tmpfs of mode 0000. git inside could not open it: `git status` printed
// "could not open directory" and "Permission denied" for each tracked
// file below it, where git on the host printed nothing. So such a
// directory is masked instead with its skeleton: a read-only tmpfs
// holding its subdirectories, a stand-in (gitmask.go) over each regular
// file and its symbolic links as they are. git then opens every
// directory, finds each file with the size and modification time it
// recorded, and prints what it prints outside: nothing for an unchanged
// tree, "??" for an untracked file that .gitignore does not cover, " M"
// for a file changed since the index was written. The files' names and
// sizes show inside (as they do in Landlock-only mode); their content
// stays hidden.
//
// A directory of more than maxSkeleton entries (node_modules) keeps the
// empty 0000 mask: its skeleton would be a bubblewrap argument per entry
// on every command.

// maxSkeleton is the most entries a masked directory's skeleton holds.
const maxSkeleton = 2000

// errTooLarge ends the walk of a directory too large for a skeleton.
var errTooLarge = errors.New("too many entries")

// maskDirArgs are the bubblewrap arguments that mask directory h: its
// skeleton for a directory inside the workspace ws small enough to have
// one, an empty tmpfs no one may open otherwise (credential directories
// outside the workspace show nothing, not even names).
func maskDirArgs(ws, h string) []string {
	empty := []string{"--perms", "0000", "--tmpfs", h, "--remount-ro", h}
	if !within(h, ws) {
		return empty
	}
	skel, err := skeleton(h)
	if err != nil {
		return empty
	}
	return append(skel, "--remount-ro", h)
}

// skeleton walks directory h and returns the arguments that rebuild it
// on a tmpfs: each directory with its permissions (and the owner's rwx,
// so that bubblewrap can fill it), a stand-in bound over each regular
// file, each symbolic link with its target. Other file types are left
// out.
func skeleton(h string) ([]string, error) {
	var a []string
	n := 0
	err := filepath.WalkDir(h, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxSkeleton {
			return errTooLarge
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			op := "--dir"
			if p == h {
				op = "--tmpfs"
			}
			a = append(a, "--perms", fmt.Sprintf("%04o", st.Mode().Perm()|0o700), op, p)
		case st.Mode().IsRegular():
			s, err := standIn(st)
			if err != nil {
				return err
			}
			a = append(a, "--ro-bind", s, p)
		case st.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			a = append(a, "--symlink", target, p)
		}
		return nil
	})
	return a, err
}
