package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleAge is how old a leftover temporary file must be before Write
// removes it. A younger one may belong to a write still in progress; removing
// that would only make that write fail, never corrupt a file, but the margin
// keeps concurrent writers of one file from failing each other.
const StaleAge = time.Minute

const (
	tempInfix  = ".toolgate-"
	tempSuffix = ".tmp"
)

// IsTemp reports whether a file name (no directory) is one of this
// package's temporary files, so listings can hide them.
func IsTemp(name string) bool {
	rest, ok := strings.CutSuffix(name, tempSuffix)
	if !ok || !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(rest, tempInfix)
	if i < 2 { // a leading dot and at least one byte of the target name
		return false
	}
	id := rest[i+len(tempInfix):]
	return len(id) == 16 && strings.Trim(id, "0123456789abcdef") == ""
}

// cleanTemps removes the temporary files in dir (not its subdirectories)
// whose modification time is at least olderThan ago, only those of target
// base when base is not empty, and returns the names removed.
func cleanTemps(root *os.Root, dir, base string, olderThan time.Duration) ([]string, error) {
	d, err := root.Open(dir)
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	_ = d.Close()
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	cutoff := time.Now().Add(-olderThan)
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || !IsTemp(n) || (base != "" && !strings.HasPrefix(n, "."+truncBase(base)+tempInfix)) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().After(cutoff) {
			continue
		}
		if err := root.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, n)
	}
	return removed, errors.Join(errs...)
}

func truncBase(base string) string {
	if len(base) > 200 {
		return base[:200]
	}
	return base
}
