package atomicfile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

const (
	crashEnv    = "TOOLGATE_ATOMICFILE_CRASH_DIR"
	crashTarget = "big.bin"
	crashRounds = 30
)

// crashVersions are the two contents the child alternates. Different
// lengths and patterns make any mix of them, or a short write, detectable.
func crashVersions() [2][]byte {
	return [2][]byte{
		bytes.Repeat([]byte("version A 0123456789\n"), 2<<20/21),
		bytes.Repeat([]byte("B-v2 abcdefghijklmnopqrstuvwxyz\n"), 3<<20/32),
	}
}

// TestCrashNeverTears kills a writing process at random moments and checks
// that the target always holds one whole version. The child is this test
// binary re-run with crashEnv set. SIGKILL tests what a process crash can
// do (rename atomicity, no partial target); surviving power loss also
// depends on the fsyncs, which no test here can observe.
func TestCrashNeverTears(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		crashChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	_, ws, _ := workspace(t)
	versions := crashVersions()
	seed := rand.Uint64()
	rnd := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d", seed)
	midWrite := 0
	for round := range crashRounds {
		killChildAtRandom(t, ws, rnd)
		got, err := os.ReadFile(filepath.Join(ws, crashTarget))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !bytes.Equal(got, versions[0]) && !bytes.Equal(got, versions[1]) {
			t.Fatalf("round %d: target torn: %d bytes, equal to neither version", round, len(got))
		}
		for _, n := range listDir(t, ws) {
			if n != crashTarget && !IsTemp(n) {
				t.Fatalf("round %d: unexpected debris %q", round, n)
			}
			if IsTemp(n) {
				midWrite++
				break
			}
		}
	}
	t.Logf("%d of %d kills left a temporary file (killed between create and rename)", midWrite, crashRounds)
	if midWrite == 0 {
		t.Errorf("no kill landed inside a write; the test did not exercise the crash window")
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	// The start-up sweep (cmd/toolgate) clears what the kills left.
	if _, err := SweepTemps(context.Background(), root, 0, 1000); err != nil {
		t.Fatalf("SweepTemps: %v", err)
	}
	if got := listDir(t, ws); !slices.Equal(got, []string{crashTarget}) {
		t.Errorf("after SweepTemps: got %v, want only %s", got, crashTarget)
	}
}

// killChildAtRandom starts a writer, lets it finish one or two writes,
// waits a random 0-20 ms so the kill lands anywhere in the next write, and
// kills it. The random wait is the point of the test, not synchronisation.
func killChildAtRandom(t *testing.T, ws string, rnd *rand.Rand) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashNeverTears$")
	cmd.Env = append(os.Environ(), crashEnv+"="+ws)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	written := make(chan struct{}, 64)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "written" {
				select {
				case written <- struct{}{}:
				default:
				}
			}
		}
	}()
	for range 1 + rnd.IntN(2) {
		select {
		case <-written:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatal("child wrote nothing for 30 s")
		}
	}
	time.Sleep(time.Duration(rnd.Int64N(int64(20 * time.Millisecond))))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// crashChild writes the two versions in turn until killed, bounded so an
// orphan cannot run forever.
func crashChild(dir string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	versions := crashVersions()
	for i := range 10000 {
		if err := Write(root, crashTarget, versions[i%2], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println("written")
	}
	os.Exit(0)
}
