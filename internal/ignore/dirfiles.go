package ignore

import (
	"errors"
	"io/fs"
	"os"
	"path"
)

// WithDir reads the ignore files names (e.g. ".gitignore", ".ignore") of
// the workspace directory dir ("" for the root) through root and adds them
// with WithFile, in the order given, so a later name takes precedence.
// Missing files are skipped. Files that are not regular files or are
// unreadable are skipped and reported in the error; the returned matcher
// holds everything that could be read.
func (m *Matcher) WithDir(root *os.Root, dir string, names ...string) (*Matcher, error) {
	if root == nil {
		return m, errors.New("ignore: nil workspace root")
	}
	dir = cleanBase(dir)
	l := &loader{root: root}
	var errs []error
	for _, n := range names {
		name := path.Join(dir, n)
		data, err := l.read(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m = m.WithFile(name, dir, data)
	}
	return m, errors.Join(errs...)
}
