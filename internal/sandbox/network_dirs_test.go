package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// SweepNetworkDirs removes the directories whose toolgate has ended and
// keeps those of live ones: with a lock file, by the lock; without one
// (made by a toolgate from before the lock file), by whether the proxy
// socket answers, or by age where there is no socket.
func TestSweepNetworkDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mk := func(name string) string {
		t.Helper()
		d := filepath.Join(tmp, netDirPrefix+name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	listen := func(dir string) *net.UnixListener {
		t.Helper()
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "proxy.sock"), Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}

	held, lock, err := makeNetDir()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	freed, freedLock, err := makeNetDir()
	if err != nil {
		t.Fatal(err)
	}
	freedLock.Close() // as the kernel does for a killed toolgate

	oldLive := mk("old-live")
	ln := listen(oldLive)
	defer ln.Close()
	oldDead := mk("old-dead")
	dead := listen(oldDead)
	dead.SetUnlinkOnClose(false)
	dead.Close()
	young := mk("young")
	stale := mk("stale")
	long := time.Now().Add(-2 * netDirOrphanAge)
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}

	swept := SweepNetworkDirs()
	slices.Sort(swept)
	want := []string{freed, oldDead, stale}
	slices.Sort(want)
	if !slices.Equal(swept, want) {
		t.Errorf("swept %v, want %v", swept, want)
	}
	for _, d := range []string{held, oldLive, young} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v, want kept", filepath.Base(d), err)
		}
	}
	for _, d := range want {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want removed", filepath.Base(d), err)
		}
	}
}
