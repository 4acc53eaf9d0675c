//go:build !unix

package ignore

import "io/fs"

// inode is 0 where the system's stat has no inode number (Windows): a
// rules file replaced by rename is then seen by its size and modification
// time alone.
func inode(fs.FileInfo) uint64 { return 0 }
