//go:build linux

package helper

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// dropCapabilities leaves the calling thread, and the command it execs,
// without any capability: none now, none in the bounding set (root would
// get that set back at execve) and none ambient. bubblewrap drops them
// already; in Landlock-only mode a command run by a root toolgate would
// otherwise keep CAP_SYS_PTRACE, which opens toolgate's /proc entries
// (its environment, open files and memory) past Landlock's ptrace
// restriction, and CAP_DAC_OVERRIDE and the rest. The thread must be
// locked (runHelper).
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Permitted|data[1].Permitted == 0 {
		return nil // nothing to drop, and no right to change the bounding set
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
