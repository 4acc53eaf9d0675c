package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// SweepNetworkDirs removes the directories whose toolgate has ended and
// keeps those of live ones, for both kinds of proxy: with a lock file, by
// the lock; without one (made by a toolgate from before the lock file),
// by whether the proxy socket answers, or by age where there is no
// socket.
func TestSweepNetworkDirs(t *testing.T) {
	for _, prefix := range []string{netDirPrefix, allowDirPrefix} {
		t.Run(prefix, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			mk := func(name string) string {
				t.Helper()
				d := filepath.Join(tmp, prefix+name)
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
				return d
			}
			listen := func(dir string) *net.UnixListener {
				t.Helper()
				ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, proxySocket), Net: "unix"})
				if err != nil {
					t.Fatal(err)
				}
				return ln
			}

			held, err := makeSocketDir(prefix)
			if err != nil {
				t.Fatal(err)
			}
			defer held.remove()
			freed, err := makeSocketDir(prefix)
			if err != nil {
				t.Fatal(err)
			}
			freed.lock.Close() // as the kernel does for a killed toolgate

			oldLive := mk("old-live")
			ln := listen(oldLive)
			defer ln.Close()
			oldDead := mk("old-dead")
			dead := listen(oldDead)
			dead.SetUnlinkOnClose(false)
			dead.Close()
			young := mk("young")
			stale := mk("stale")
			long := time.Now().Add(-2 * socketDirOrphanAge)
			if err := os.Chtimes(stale, long, long); err != nil {
				t.Fatal(err)
			}

			swept := SweepNetworkDirs()
			slices.Sort(swept)
			want := []string{freed.path, oldDead, stale}
			slices.Sort(want)
			if !slices.Equal(swept, want) {
				t.Errorf("swept %v, want %v", swept, want)
			}
			for _, d := range []string{held.path, oldLive, young} {
				if _, err := os.Stat(d); err != nil {
					t.Errorf("%s: %v, want kept", filepath.Base(d), err)
				}
			}
			for _, d := range want {
				if _, err := os.Stat(d); !os.IsNotExist(err) {
					t.Errorf("%s: %v, want removed", filepath.Base(d), err)
				}
			}
		})
	}
}

// TestSweepNetworkDirsOfAKilledProcess: a process killed by SIGKILL with
// a network_allow relay (toolgate-proxy-*) and a session network's proxy
// (toolgate-net-*) running leaves their socket directories behind; the
// sweep removes both, and keeps those of a process that lives, whose
// relay still answers. Before, the relay's directory stayed forever.
func TestSweepNetworkDirsOfAKilledProcess(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	killed, dead := startStandIn(t, standInProxies)
	_, live := startStandIn(t, standInProxies)
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	for _, d := range dead {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("%s after the kill: %v, want left behind", filepath.Base(d), err)
		}
	}

	swept := SweepNetworkDirs()
	slices.Sort(swept)
	want := slices.Sorted(slices.Values(dead))
	if !slices.Equal(swept, want) {
		t.Errorf("swept %v, want the killed process's %v", swept, want)
	}
	for _, d := range dead {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("the killed process's %s: %v, want removed", filepath.Base(d), err)
		}
	}
	for _, d := range live {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the live process's %s: %v, want kept", filepath.Base(d), err)
		}
	}
	c, err := net.DialTimeout("unix", filepath.Join(live[0], proxySocket), 5*time.Second)
	if err != nil {
		t.Fatalf("the live process's relay after the sweep: %v", err)
	}
	c.Close()
}
