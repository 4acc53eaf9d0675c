package sandbox

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// toolgate's network proxies listen on unix sockets in directories of
// their own in the system's temporary directory: a session network's
// proxy (network_proxy.go) and a sandbox's sandbox.network_allow relay
// (netallow.go). A toolgate killed outright (SIGKILL, the OOM killer)
// never removes them, so each directory holds a lock file that its
// toolgate keeps flocked while it lives: the kernel drops the lock with
// the process, and the next toolgate to start removes the directories
// whose lock it can take (SweepNetworkDirs).

// The prefixes of the socket directories' names, one per kind of proxy.
const (
	netDirPrefix   = "toolgate-net-"   // a session network's proxy
	allowDirPrefix = "toolgate-proxy-" // a sandbox's network_allow relay
)

// socketDirLock is the lock file in each socket directory.
const socketDirLock = ".lock"

// proxySocket is the socket in its directory that a proxy listens on.
const proxySocket = "proxy.sock"

// socketDirOrphanAge is how old a directory without a lock file must be
// to count as left behind: a toolgate takes the lock right after making
// the directory, so a younger one may be starting.
const socketDirOrphanAge = time.Minute

// socketDir is a proxy's socket directory, locked while this toolgate
// lives.
type socketDir struct {
	path string
	lock *os.File // flocked until remove
}

// makeSocketDir makes a socket directory named prefix and a random
// suffix, and takes its lock. The lock file is flocked under a temporary
// name and then renamed, so a sweep never sees the lock file free while
// its directory is still new.
func makeSocketDir(prefix string) (socketDir, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return socketDir{}, err
	}
	lock, err := os.CreateTemp(dir, socketDirLock+"-")
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			err = os.Rename(lock.Name(), filepath.Join(dir, socketDirLock))
		}
		if err != nil {
			_ = lock.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return socketDir{}, err
	}
	return socketDir{path: dir, lock: lock}, nil
}

// file is the path of the file name in the directory.
func (d socketDir) file(name string) string { return filepath.Join(d.path, name) }

// remove removes the directory, then lets go of its lock.
func (d socketDir) remove() {
	_ = os.RemoveAll(d.path)
	_ = d.lock.Close()
}

// SweepNetworkDirs removes the proxies' socket directories that toolgate
// processes which have ended left in the system's temporary directory,
// and returns them. A directory whose lock a live toolgate holds stays;
// so does one of a toolgate from before the lock file whose proxy socket
// still answers.
func SweepNetworkDirs() []string {
	var out []string
	for _, prefix := range []string{netDirPrefix, allowDirPrefix} {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
		for _, dir := range dirs {
			if socketDirLeft(dir) {
				out = append(out, dir)
			}
		}
	}
	return out
}

// socketDirLeft removes dir if its toolgate has ended, and reports
// whether it did.
func socketDirLeft(dir string) bool {
	lock, err := os.Open(filepath.Join(dir, socketDirLock))
	if errors.Is(err, os.ErrNotExist) {
		if !unlockedSocketDirLeft(dir) {
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

// unlockedSocketDirLeft reports whether a directory without a lock file
// is left behind: one a toolgate made before directories had locks, whose
// proxy socket nobody listens on any more, or one without a socket old
// enough that its lock would be there by now.
func unlockedSocketDirLeft(dir string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	sock := filepath.Join(dir, proxySocket)
	if _, err := os.Lstat(sock); errors.Is(err, os.ErrNotExist) {
		return time.Since(st.ModTime()) > socketDirOrphanAge
	}
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err == nil {
		_ = c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}
