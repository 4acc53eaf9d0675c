//go:build !linux

package tool

import "errors"

// watchStamps declines: inotify is Linux's, so stamps are polled.
func (w *Workspace) watchStamps([]Stamp) (int, error) {
	return -1, errors.New("stamps are watched on Linux only")
}

// eventQueued is never asked: no watch is armed.
func eventQueued(int) bool { return true }

// closeWatch has nothing to release.
func closeWatch(int) {}
