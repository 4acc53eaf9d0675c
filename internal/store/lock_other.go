//go:build !unix

package store

import "os"

// lockFile only creates the lock file where flock does not exist.
func lockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
