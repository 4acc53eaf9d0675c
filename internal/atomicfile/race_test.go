//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// TestWriteRacingSymlinkSwap swaps the target between a regular file and a
// symlink to an outside file while writes run. Whatever the interleaving,
// the outside file must never change: rename replaces the name itself and
// the temporary file is created with O_EXCL inside the root.
func TestWriteRacingSymlinkSwap(t *testing.T) {
	root, ws, out := workspace(t)
	secret := filepath.Join(out, "secret")
	writeFile(t, secret, "secret", 0o644)
	target := filepath.Join(ws, "f")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(ws, "swap")
			_ = os.Remove(tmp)
			if i%2 == 0 {
				_ = os.Symlink("../outside/secret", tmp)
			} else {
				_ = os.WriteFile(tmp, []byte("inside"), 0o644)
			}
			_ = os.Rename(tmp, target) // atomic swap of what "f" is
		}
	}()
	okWrites := 0
	for range 300 {
		if err := Write(root, "f", []byte("pwned"), 0o644); err == nil {
			okWrites++
		}
	}
	close(stop)
	wg.Wait()
	if got := readFile(t, secret); got != "secret" {
		t.Fatalf("outside file changed to %q after racing writes", got)
	}
	t.Logf("%d of 300 writes succeeded, the rest were refused", okWrites)
}

// TestWriteKeepsOwner needs root, since only root can give a file away.
func TestWriteKeepsOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("changing a file's owner needs root")
	}
	root, ws, _ := workspace(t)
	path := filepath.Join(ws, "owned")
	writeFile(t, path, "old", 0o644)
	if err := os.Chown(path, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	if err := Write(root, "owned", []byte("new"), 0o644); err != nil {
		t.Fatalf("Write: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 1234 || st.Gid != 5678 {
		t.Errorf("owner: got %d:%d, want 1234:5678", st.Uid, st.Gid)
	}
}
