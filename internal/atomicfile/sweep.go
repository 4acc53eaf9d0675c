package atomicfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// sweepSkip are directories no write of toolgate's is expected in, and
// that are large enough to make a sweep slow.
var sweepSkip = map[string]bool{".git": true, "node_modules": true}

// SweepTemps walks the whole tree below root and removes this package's
// temporary files at least olderThan old: what writes cut short by a
// crash or a kill left behind. Write only sweeps its own target's
// directory, so a file never written again would keep its debris. The
// walk stops after maxEntries entries or when ctx ends; it returns the
// slash paths removed.
func SweepTemps(ctx context.Context, root *os.Root, olderThan time.Duration, maxEntries int) ([]string, error) {
	cutoff := time.Now().Add(-olderThan)
	var removed []string
	var errs []error
	seen := 0
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory: skip it, sweep the rest
		}
		if seen++; seen > maxEntries {
			return fs.SkipAll
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if sweepSkip[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !IsTemp(d.Name()) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.ModTime().After(cutoff) {
			return nil
		}
		if err := root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			return nil
		}
		removed = append(removed, p)
		return nil
	})
	return removed, errors.Join(append(errs, err)...)
}
