//go:build !linux

package search

import "os"

// statAt stamps the entry name of the directory root without following a
// symbolic link.
func statAt(root *os.Root, _ *os.File, name string) (stamp, error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return stamp{}, err
	}
	return stampOf(fi), nil
}
