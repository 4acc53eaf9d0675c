package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/benchpair"
	"github.com/toolgate/toolgate/internal/sandbox/helper"
	"github.com/toolgate/toolgate/internal/testwait"
)

// saveAnew writes path's file anew beside it and renames it over, as
// editors save: the mount over the old one goes with it.
func saveAnew(t *testing.T, path, content string) {
	t.Helper()
	tmp := writeFile(t, filepath.Dir(path), filepath.Base(path)+".tmp", content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestStartedAheadMountsCheckedByID: the helper of a sandbox started
// ahead notes the ID of each of its mounts, and a run's check compares
// them (not the mount table): a mask whose path was saved anew outside
// no longer has its ID there.
func TestStartedAheadMountsCheckedByID(t *testing.T) {
	if _, err := helper.MountIDs("", []string{"/"}); errors.Is(err, helper.ErrNoMountIDs) {
		t.Skip("statx reports no mount IDs on this kernel")
	}
	ws := onDisk(t)
	secret := writeFile(t, ws, ".env", "OLD-SECRET")
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	r := Run{Workspace: ws, Hide: []string{secret}}
	if o := runWarm(t, s, r, "echo ran"); !contains(o.out, "ran") {
		t.Fatalf("the run failed:\n%s", o.out)
	}
	w := nextStartedAhead(t, s)
	if err := w.check(); err != nil {
		t.Fatalf("the unchanged sandbox fails its check: %v", err)
	}
	if len(w.ids) == 0 || len(w.ids) != len(w.mounts) {
		t.Fatalf("%d mount IDs noted for %d mount points", len(w.ids), len(w.mounts))
	}
	root := "/proc/" + strconv.Itoa(w.pid) + "/root"
	if err := helper.CheckMountIDs(root, w.mounts, w.ids); err != nil {
		t.Fatalf("the IDs do not check before the change: %v", err)
	}
	saveAnew(t, secret, "NEW-SECRET")
	if err := helper.CheckMountIDs(root, w.mounts, w.ids); err == nil {
		t.Error("the IDs still check with the mask on .env gone")
	}
}

// TestStartedAheadHelperChecksItsMountsAtTheHandOver: a mask that goes
// after the run's Prepare checked the sandbox and before the command
// comes is caught by the helper, which then runs nothing.
func TestStartedAheadHelperChecksItsMountsAtTheHandOver(t *testing.T) {
	ws := onDisk(t)
	secret := writeFile(t, ws, ".env", "OLD-SECRET")
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	r := Run{Workspace: ws, Hide: []string{secret}}
	if o := runWarm(t, s, r, "echo ran"); !contains(o.out, "ran") {
		t.Fatalf("the run failed:\n%s", o.out)
	}
	p := prepareStartedAhead(t, s, []string{"bash", "-c", "cat .env > out; echo ran > out2"}, r)
	defer p.Finish()
	saveAnew(t, secret, "NEW-SECRET")
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.Env, out, out
	err = p.Start(cmd)
	if err == nil {
		_ = p.Running(cmd).Wait()
		t.Fatal("the command was handed over to a sandbox whose mask on .env is gone")
	}
	if !contains(err.Error(), "no longer mounted") {
		t.Errorf("Start: %v, want the sandbox changed", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "out2")); err == nil {
		t.Error("the command ran")
	}
}

// TestStartedAheadRunHoldsItsMountNamespace: a run handed to a sandbox
// started ahead holds the sandbox's mount namespace (not toolgate's)
// until Finish, so that the sandbox's exit does not take its mounts down
// on the run's path, and lets it go then.
func TestStartedAheadRunHoldsItsMountNamespace(t *testing.T) {
	ws := onDisk(t)
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	r := Run{Workspace: ws}
	if o := runWarm(t, s, r, "echo ran"); !contains(o.out, "ran") {
		t.Fatalf("the run failed:\n%s", o.out)
	}
	p := prepareStartedAhead(t, s, []string{"bash", "-c", "true"}, r)
	w := p.warm
	if w.mntNS == nil {
		p.Finish()
		t.Fatal("the run holds no mount namespace")
	}
	inode := func(path string) uint64 {
		t.Helper()
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	var held syscall.Stat_t
	if err := syscall.Fstat(int(w.mntNS.Fd()), &held); err != nil {
		t.Fatal(err)
	}
	if want := inode("/proc/" + strconv.Itoa(w.pid) + "/ns/mnt"); held.Ino != want || held.Ino == inode("/proc/self/ns/mnt") {
		t.Errorf("the namespace held is %d, the sandbox's is %d", held.Ino, want)
	}
	if o := runPrepared(t, p, ws, nil); o.code != 0 {
		t.Fatalf("the run failed (%d):\n%s", o.code, o.out)
	}
	if w.mntNS != nil {
		t.Error("the mount namespace is still held after Finish")
	}
}

// TestStartedAheadRunCgroupsGoAfterFinish: the limit cgroups of a run
// handed to a sandbox started ahead are removed after Finish (in the
// background), and once the Sandbox is closed none of its cgroups is
// left.
func TestStartedAheadRunCgroupsGoAfterFinish(t *testing.T) {
	ws := onDisk(t)
	s := New(Config{Mode: ModeBwrap})
	if s.Mode() != InForceBwrap || s.cgroups == nil {
		s.Close()
		t.Skip("no bubblewrap or no limit cgroups here")
	}
	s.helper = helperBinary(t)
	var dirs []string
	for range 3 {
		p := prepareStartedAhead(t, s, []string{"bash", "-c", "true"}, Run{Workspace: ws})
		dirs = append(dirs, p.limits.dirs...)
		if o := runPrepared(t, p, ws, nil); o.code != 0 {
			t.Fatalf("the run failed (%d):\n%s", o.code, o.out)
		}
	}
	gone := func(paths []string) func() bool {
		return func() bool {
			for _, d := range paths {
				if _, err := os.Stat(d); !os.IsNotExist(err) {
					return false
				}
			}
			return true
		}
	}
	testwait.Until(t, 10*time.Second, "the finished runs' cgroups removed", gone(dirs))
	var parents []string
	for _, h := range s.cgroups.hiers {
		parents = append(parents, h.base)
	}
	s.Close()
	if !gone(parents)() {
		t.Errorf("cgroups left after Close: %v", parents)
	}
}

// BenchmarkStartedAheadMountCheck checks a sandbox started ahead the way
// a run's Prepare does, by its mounts' IDs under /proc/PID/root (fast),
// and by its mount table, /proc/PID/mountinfo (plain), in alternating
// turns (internal/benchpair); the helper's check at the hand-over is the
// same against its own root. The workspace holds an ignored file, masked.
//
//	go test -run '^$' -bench StartedAheadMountCheck -benchtime 2000x ./internal/sandbox
func BenchmarkStartedAheadMountCheck(b *testing.B) {
	s := New(Config{Mode: ModeBwrap})
	if s.Mode() != InForceBwrap {
		b.Skipf("no bubblewrap: %s", s.Info().Reason)
	}
	defer s.Close()
	s.helper = helperBinary(b)
	ws := b.TempDir()
	secret := writeFile(b, ws, ".env", "SECRET")
	var p *Prepared
	for range 3 {
		var err error
		p, err = s.Prepare([]string{"true"}, os.Environ(), Run{Workspace: ws, Hide: []string{secret}, Warm: true, StartOnThread: true})
		if err != nil {
			b.Fatal(err)
		}
		if p.warm != nil {
			break
		}
		p.Finish()
	}
	if p.warm == nil {
		b.Fatal("no sandbox was started ahead")
	}
	defer p.Finish()
	w := p.warm
	if w.ids == nil {
		b.Skip("statx reports no mount IDs here")
	}
	proc := "/proc/" + strconv.Itoa(w.pid)
	benchpair.Run(b, func() {
		if err := helper.CheckMountIDs(proc+"/root", w.mounts, w.ids); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if err := helper.CheckMounts(proc+"/mountinfo", w.mounts); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(float64(len(w.mounts)), "mount-points")
}
