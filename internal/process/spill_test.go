package process

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spillServerVar, in a test binary's environment, names the root under
// which it opens a spill area, spills an output and waits to be killed.
const spillServerVar = "TOOLGATE_PROCESS_TEST_SPILL_ROOT"

func TestMain(m *testing.M) {
	if root := os.Getenv(spillServerVar); root != "" {
		spillingServer(root)
	}
	code := m.Run()
	// As toolgate does at shutdown: each test binary otherwise left its
	// toolgate-<pid> cgroup and a run cgroup in the machine's hierarchy.
	RemoveCgroups()
	os.Exit(code)
}

// spillingServer stands in for a toolgate with a spilled output.
func spillingServer(root string) {
	area, _, err := OpenSpillArea(root, 0)
	if err != nil {
		os.Exit(1)
	}
	o := NewOutput(OutputLimits{Memory: 10, Area: area})
	_, _ = o.Write(bytes.Repeat([]byte("x"), 1000))
	_ = o.Close()
	os.Stdout.WriteString(area.Dir() + "\n")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// diskUse is the bytes of the files below dir.
func diskUse(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// TestSpillAreaCapsAllOutputsTogether is the attack of many calls each
// printing up to the per-call cap (twelve "cat big big" left 808 MB):
// with the area's cap, the spill files hold at most the cap together
// (plus one short note each), every output still keeps its head, and
// removing them gives the room back.
func TestSpillAreaCapsAllOutputsTogether(t *testing.T) {
	const limit = 1<<20 + 100<<10
	area, _, err := OpenSpillArea(t.TempDir(), limit)
	if err != nil {
		t.Fatal(err)
	}
	defer area.Close()
	big := bytes.Repeat([]byte("0123456789abcdef"), 16<<10) // 256 KiB
	var outs []*Output
	for range 12 {
		o := NewOutput(OutputLimits{Memory: 1 << 10, Tail: 1 << 10, Full: 64 << 20, Area: area})
		for range 2 {
			_, _ = o.Write(big)
		}
		_ = o.Close()
		outs = append(outs, o)
	}
	if used := diskUse(t, area.Dir()); used > limit+12*200 {
		t.Errorf("12 outputs of 512 KiB spilled %d bytes, cap %d", used, limit)
	}
	noted := false
	for i, o := range outs {
		r, err := o.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(r)
		r.Close()
		if !bytes.HasPrefix(data, big[:1<<10]) {
			t.Errorf("output %d lost its head: %.100q", i, data)
		}
		noted = noted || strings.Contains(string(data), "capped at 1.1 MB together")
	}
	if !noted {
		t.Errorf("no output says the cap on all outputs cut it")
	}
	if last := outs[11]; last.Size() >= last.Total() {
		t.Errorf("an output past the cap kept %d of %d bytes", last.Size(), last.Total())
	}
	for _, o := range outs {
		_ = o.Remove()
	}
	if area.Used() != 0 || diskUse(t, area.Dir()) != 0 {
		t.Errorf("after removal: %d bytes counted, %d on disk", area.Used(), diskUse(t, area.Dir()))
	}
}

// TestSpillsOfAKilledServerAreSweptAtStart kills (SIGKILL) a process that
// spilled an output, then opens a spill area as a server starting anew
// does: the dead server's directory is gone, a live one's is kept.
func TestSpillsOfAKilledServerAreSweptAtStart(t *testing.T) {
	root := t.TempDir()
	live, _, err := OpenSpillArea(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	writeSpill := NewOutput(OutputLimits{Memory: 10, Area: live})
	_, _ = writeSpill.Write(bytes.Repeat([]byte("y"), 100))
	_ = writeSpill.Close()

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), spillServerVar+"="+root)
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	got := make(chan string, 1)
	go func() { line, _ := bufio.NewReader(stdout).ReadString('\n'); got <- strings.TrimSpace(line) }()
	var dead string
	select {
	case dead = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the spilling process did not start within 30 s")
	}
	if diskUse(t, dead) == 0 {
		t.Fatalf("the spilling process spilled nothing in %q", dead)
	}
	_ = child.Process.Kill()
	_ = child.Wait()

	again, swept, err := OpenSpillArea(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := os.Stat(dead); err == nil || len(swept) != 1 || swept[0] != dead {
		t.Errorf("the killed server's spills are still there (swept %v)", swept)
	}
	if diskUse(t, live.Dir()) == 0 {
		t.Errorf("a live server's spills were removed")
	}
}
