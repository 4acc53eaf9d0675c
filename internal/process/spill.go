package process

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// A SpillArea is where one server's spilled outputs go: a directory of its
// own under a root that every toolgate of the user shares, locked while
// the server runs, and a cap on the bytes all its spill files hold
// together (each Output's Full caps one file, not how many there are).
type SpillArea struct {
	dir  string
	lock *os.File // flocked: the directory's server is alive
	max  int64
	used atomic.Int64
}

// spillLock is the lock file in each server's spill directory.
const spillLock = ".lock"

// orphanAge is how old a spill directory without a lock file must be to
// count as left behind (a server makes the lock right after the
// directory, so a younger one may be starting).
const orphanAge = time.Hour

// OpenSpillArea makes this server's spill directory under root (made
// 0700 when missing) after removing those of servers that are gone: a
// server killed by SIGKILL leaves its spills behind, and their lock is
// then free. It returns the directories removed. max caps the bytes all
// spills hold together; 0 or less means no cap.
func OpenSpillArea(root string, max int64) (*SpillArea, []string, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, nil, err
	}
	swept := sweepSpills(root)
	dir, err := os.MkdirTemp(root, "server-")
	if err != nil {
		return nil, swept, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, spillLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, swept, err
	}
	return &SpillArea{dir: dir, lock: lock, max: max}, swept, nil
}

// sweepSpills removes the spill directories under root whose server is
// gone, and returns them.
func sweepSpills(root string) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "server-") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		lock, err := os.Open(filepath.Join(dir, spillLock))
		if errors.Is(err, os.ErrNotExist) {
			if st, err := os.Stat(dir); err == nil && time.Since(st.ModTime()) > orphanAge {
				_ = os.RemoveAll(dir)
				out = append(out, dir)
			}
			continue
		}
		if err != nil {
			continue
		}
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = os.RemoveAll(dir) // removed while locked: no server can take it meanwhile
			out = append(out, dir)
		}
		_ = lock.Close()
	}
	return out
}

// Dir is the directory spill files go to.
func (a *SpillArea) Dir() string { return a.dir }

// Used is how many bytes the spill files hold now.
func (a *SpillArea) Used() int64 { return a.used.Load() }

// Close removes the directory with every spill file in it.
func (a *SpillArea) Close() error {
	err := os.RemoveAll(a.dir)
	_ = a.lock.Close()
	return err
}

// reserve takes up to n bytes of the cap and returns how many it took.
func (a *SpillArea) reserve(n int64) int64 {
	if a.max <= 0 {
		a.used.Add(n)
		return n
	}
	for {
		used := a.used.Load()
		take := min(n, a.max-used)
		if take <= 0 {
			return 0
		}
		if a.used.CompareAndSwap(used, used+take) {
			return take
		}
	}
}

// release gives back n bytes of a removed spill file.
func (a *SpillArea) release(n int64) { a.used.Add(-n) }
