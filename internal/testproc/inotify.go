package testproc

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testwait"
)

// InotifyInstances counts this process's open inotify instances; the
// test is skipped where /proc/self/fd cannot be read.
func InotifyInstances(t testing.TB) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && target == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// WaitInotifyInstances waits, 5 s at most, for n inotify instances to be
// open (a StampWatch closes its instance on a goroutine), when. Only
// tests that run one at a time may count them.
func WaitInotifyInstances(t testing.TB, n int, when string) {
	t.Helper()
	testwait.Until(t, 5*time.Second, fmt.Sprintf("%d inotify instances open %s", n, when), func() bool {
		return InotifyInstances(t) == n
	})
}
