//go:build !unix

package store

import (
	"os"
	"time"
)

// lockFile only creates the lock file where flock does not exist.
func lockFile(path string, _ time.Duration) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
