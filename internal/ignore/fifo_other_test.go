//go:build !unix

package ignore

import "errors"

// mkfifo has no named pipe to make outside Unix: the test skips.
func mkfifo(string) error { return errors.ErrUnsupported }
