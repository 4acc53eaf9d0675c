//go:build !linux

package fdpath

import (
	"errors"
	"os"
)

// Of is supported on Linux only.
func Of(f *os.File) (string, error) { return "", errors.ErrUnsupported }

// Resolve is supported on Linux only.
func Resolve(root *os.Root, name string) (string, error) { return "", errors.ErrUnsupported }

// RootPath is supported on Linux only: it returns "".
func RootPath(root *os.Root) string { return "" }
