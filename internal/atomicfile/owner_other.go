//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// keepOwner does nothing where files have no Unix owner to keep.
func keepOwner(*os.File, fs.FileInfo) {}
