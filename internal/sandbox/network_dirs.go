package sandbox

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A session network's proxy sockets live in a directory of their own in
// the system's temporary directory. A toolgate killed outright (SIGKILL,
// the OOM killer) never removes them, so each directory holds a lock
// file that its toolgate keeps flocked while it lives: the kernel drops
// the lock with the process, and the next toolgate to start removes the
// directories whose lock it can take (SweepNetworkDirs).

// netDirPrefix starts the name of every session network's directory.
const netDirPrefix = "toolgate-net-"

// netDirLock is the lock file in each session network's directory.
const netDirLock = ".lock"

// netDirOrphanAge is how old a directory without a lock file must be to
// count as left behind: a toolgate takes the lock right after making the
// directory, so a younger one may be starting.
const netDirOrphanAge = time.Minute

// makeNetDir makes a session network's directory and takes its lock,
// which the caller keeps open while the directory is in use. The lock
// file is flocked under a temporary name and then renamed, so a sweep
// never sees the lock file free while its directory is still new.
func makeNetDir() (dir string, lock *os.File, err error) {
	dir, err = os.MkdirTemp("", netDirPrefix)
	if err != nil {
		return "", nil, err
	}
	lock, err = os.CreateTemp(dir, netDirLock+"-")
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			err = os.Rename(lock.Name(), filepath.Join(dir, netDirLock))
		}
		if err != nil {
			_ = lock.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, lock, nil
}

// SweepNetworkDirs removes the session networks' directories that
// toolgate processes which have ended left in the system's temporary
// directory, and returns them. A directory whose lock a live toolgate
// holds stays; so does one of a toolgate from before the lock file whose
// proxy socket still answers.
func SweepNetworkDirs() []string {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), netDirPrefix+"*"))
	var out []string
	for _, dir := range dirs {
		if netDirLeft(dir) {
			out = append(out, dir)
		}
	}
	return out
}

// netDirLeft removes dir if its toolgate has ended, and reports whether
// it did.
func netDirLeft(dir string) bool {
	lock, err := os.Open(filepath.Join(dir, netDirLock))
	if errors.Is(err, os.ErrNotExist) {
		if !unlockedNetDirLeft(dir) {
			return false
		}
		return os.RemoveAll(dir) == nil
	}
	if err != nil {
		return false
	}
	defer lock.Close()
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // its toolgate lives
	}
	// Removed while locked: no toolgate can take it meanwhile.
	return os.RemoveAll(dir) == nil
}

// unlockedNetDirLeft reports whether a directory without a lock file is
// left behind: one a toolgate made before directories had locks, whose
// proxy socket nobody listens on any more, or one without a socket old
// enough that its lock would be there by now.
func unlockedNetDirLeft(dir string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	sock := filepath.Join(dir, "proxy.sock")
	if _, err := os.Lstat(sock); errors.Is(err, os.ErrNotExist) {
		return time.Since(st.ModTime()) > netDirOrphanAge
	}
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err == nil {
		_ = c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}
