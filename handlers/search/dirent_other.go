//go:build !linux

package search

import "os"

// readDirTyped lists an open directory with the entries' types.
func readDirTyped(f *os.File) ([]dirent, error) {
	entries, err := f.ReadDir(-1)
	out := make([]dirent, 0, len(entries))
	for _, e := range entries {
		out = append(out, dirent{name: e.Name(), typ: e.Type()})
	}
	return out, err
}
