//go:build !linux

package tool

import (
	"errors"
	"io/fs"
)

// PlainFile is a workspace file opened by OpenPlain, which only Linux
// has (openat2).
type PlainFile struct{}

// OpenPlain declines: only Linux has openat2; callers open through Root.
func (w *Workspace) OpenPlain(rel string) (*PlainFile, error) { return nil, errors.ErrUnsupported }

// Read is never reached: OpenPlain makes no PlainFile here.
func (f *PlainFile) Read(p []byte) (int, error) { return 0, errors.ErrUnsupported }

// Close is never reached: OpenPlain makes no PlainFile here.
func (f *PlainFile) Close() error { return errors.ErrUnsupported }

// Info is never reached: OpenPlain makes no PlainFile here.
func (f *PlainFile) Info() fs.FileInfo { return nil }

// PlainPath reports false: only Linux has openat2.
func (w *Workspace) PlainPath(rel string) bool { return false }

// WalkEntries reports false: the caller walks through Root.
func (w *Workspace) WalkEntries(dir string, visit func(p string, d fs.DirEntry) bool) bool {
	return false
}

// onLocalFileSystem is false: OpenPlain is Linux's alone.
func onLocalFileSystem(int) bool { return false }
