//go:build linux

package helper

import (
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// A sandbox started ahead of its run checks, when the run comes, that
// each of its mount points is still mounted where it was: reading the
// mount table for that (/proc/PID/mountinfo, CheckMounts) took 250-300 µs
// here (the kernel writes a line for every mount of the host, which a
// sandbox bound from / sees too, and takes the mount table's lock
// against the sandboxes being set up meanwhile), once in Prepare and once
// in the helper, both on the command's path. So the table is read once,
// by the helper before it says it waits, and the mount each point
// resolves to is noted by its ID (statx); a run's checks then compare
// those IDs, a statx per mount point. A mount that went with its path
// (removed or renamed outside) leaves the path on the mount below, or on
// none: its ID is not the one noted. Speed only:
// BenchmarkSequentialSandboxedTrue (./internal/sandbox/) defends it.

// ErrNoMountIDs says statx tells no mount IDs here (Linux before 5.8);
// the mount table is read instead.
var ErrNoMountIDs = errors.New("statx reports no mount IDs")

// MountIDs returns the ID of the mount each path resolves to, the paths
// taken below root ("" for this process's root, /proc/PID/root for
// another's).
func MountIDs(root string, paths []string) ([]uint64, error) {
	ids := make([]uint64, len(paths))
	for i, p := range paths {
		id, err := mountID(root + p)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// CheckMountIDs verifies that each path still resolves to the mount
// whose ID was noted (MountIDs with the same root). It fails with
// ErrNoMountIDs, or with a permission error where the paths cannot be
// looked at from here: the mount table can still tell (CheckMounts).
func CheckMountIDs(root string, paths []string, want []uint64) error {
	if len(want) != len(paths) {
		return fmt.Errorf("%d mount IDs noted for %d mount points", len(want), len(paths))
	}
	for i, p := range paths {
		id, err := mountID(root + p)
		switch {
		case errors.Is(err, ErrNoMountIDs), errors.Is(err, fs.ErrPermission):
			return err
		case err != nil || id != want[i]:
			return fmt.Errorf("the sandbox changed since it was made: %s is no longer mounted", p)
		}
	}
	return nil
}

// mountID is the ID of the mount path resolves to: the unique one where
// the kernel has it (Linux 6.8), which no later mount takes again.
func mountID(path string) (uint64, error) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC,
		unix.STATX_MNT_ID|unix.STATX_MNT_ID_UNIQUE, &st)
	if err != nil {
		return 0, &fs.PathError{Op: "statx", Path: path, Err: err}
	}
	if st.Mask&(unix.STATX_MNT_ID|unix.STATX_MNT_ID_UNIQUE) == 0 {
		return 0, ErrNoMountIDs
	}
	return st.Mnt_id, nil
}
