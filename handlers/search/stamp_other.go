//go:build !linux

package search

import "io/fs"

// stampOf is the portable stamp (stampOfInfo) on systems other than
// Linux: without an inode number or change time, a file replaced by
// another of the same size and modification time within a clock tick
// keeps its cached index entry until either changes.
func stampOf(fi fs.FileInfo) stamp { return stampOfInfo(fi) }
