//go:build !linux

package search

import "os"

// entryFile is a regular file a search reads.
type entryFile struct {
	*os.File
	st stamp
}
