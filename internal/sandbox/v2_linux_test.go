package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testproc"
	"github.com/toolgate/toolgate/internal/testwait"
	"golang.org/x/sys/unix"
)

// mountV2 mounts a cgroup2 hierarchy in a temporary directory and makes
// the sandboxes made afterwards in the test use it as their only limit
// hierarchy (v2TestMount). This machine, and CI, have pids and memory on
// cgroup v1 only, and the kernel's v2 hierarchy has neither controller:
// without this the v2 path (run cgroups, CLONE_INTO_CGROUP, cgroup.kill)
// never runs in a test. The limits themselves are not enforced there.
func mountV2(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("mounting a cgroup2 hierarchy needs root")
	}
	dir := t.TempDir()
	if err := unix.Mount("none", dir, "cgroup2", 0, ""); err != nil {
		t.Skipf("cannot mount cgroup2 here: %v", err)
	}
	v2TestMount = dir
	t.Cleanup(func() {
		v2TestMount = ""
		// The mount shows the machine's one v2 hierarchy: what a failed
		// test left in it would outlive the unmount.
		left, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("toolgate-limits-%d-*", os.Getpid())))
		for _, base := range left {
			runs, _ := filepath.Glob(filepath.Join(base, "run-*"))
			for _, r := range runs {
				killCgroup(r)
				removeCgroup(t, r)
			}
			removeCgroup(t, base)
		}
		// The helpers of sandboxes just ended may still hold a run
		// cgroup's directory open.
		deadline := time.Now().Add(testwait.Limit)
		for err := unix.Unmount(dir, 0); err != nil; err = unix.Unmount(dir, 0) {
			if time.Now().After(deadline) {
				t.Errorf("unmount %s: %v", dir, err)
				_ = unix.Unmount(dir, unix.MNT_DETACH)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	return dir
}

// killCgroup kills what is in a cgroup, without the code under test
// (killAll).
func killCgroup(dir string) {
	_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	for _, f := range strings.Fields(string(procs)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 && pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// removeCgroup removes an emptied cgroup, waiting for its last processes
// to leave.
func removeCgroup(t *testing.T, dir string) {
	deadline := time.Now().Add(testwait.Limit)
	for os.Remove(dir) != nil && !os.IsNotExist(os.Remove(dir)) {
		if time.Now().After(deadline) {
			t.Errorf("cgroup %s left behind", dir)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reported is a run answered from its helper's report, as toolgate's
// runner answers it (internal/process: waitEnd).
type reported struct {
	exit   Exit
	left   []string // processes with the marker running when the report came
	cgroup string   // the command's cgroup2 path, from its /proc/self/cgroup
	reused bool     // the run had its session's kept sandbox
}

// runReported hands script to a sandbox started ahead of time (or the
// session's kept one), waits for the helper's report and lists what is
// still running with marker in its command line at that moment, before
// Finish. The command's 0:: line of /proc/self/cgroup is read from a
// file it writes in the workspace.
func runReported(t *testing.T, s *Sandbox, r Run, script, marker string) reported {
	t.Helper()
	p := prepareStartedAhead(t, s, []string{"bash", "-c", `grep '^0::' /proc/self/cgroup >.cgroup-line; ` + script}, r)
	cgOut := filepath.Join(r.Workspace, ".cgroup-line")
	_ = os.Remove(cgOut)
	f, err := os.Create(filepath.Join(t.TempDir(), "output"))
	if err != nil {
		p.Finish()
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.Dir, cmd.ExtraFiles = p.Env, r.Workspace, p.ExtraFiles
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := p.Start(cmd); err != nil {
		p.Finish()
		t.Fatalf("Start: %v", err)
	}
	out := reported{reused: p.reused}
	fd := p.EndFD()
	if fd < 0 {
		p.Finish()
		t.Fatal("the run was not handed to a sandbox started ahead")
	}
	defer unix.Close(fd)
	if err := awaitReadable(fd); err != nil {
		p.Finish()
		t.Fatal(err)
	}
	ex, ok := p.Ended()
	out.left = testproc.Matching(marker)
	p.Finish()
	if !ok {
		t.Fatal("the helper ended without reporting the command's end")
	}
	out.exit = ex
	line, _ := os.ReadFile(cgOut)
	out.cgroup = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(line)), "0::"))
	return out
}

// awaitReadable waits for fd to become readable, at most testwait.Limit.
func awaitReadable(fd int) error {
	deadline := time.Now().Add(testwait.Limit)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("no report from the helper within %v", testwait.Limit)
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, int(left/time.Millisecond)+1)
		switch {
		case err == unix.EINTR: // a signal to the Go runtime: wait on
		case err != nil:
			return fmt.Errorf("poll the helper's report: %w", err)
		case n == 1:
			return nil
		}
	}
}

// TestV2RunCgroups runs commands with a cgroup2 hierarchy as the limit
// hierarchy, through a sandbox started ahead of time and a session's kept
// sandbox: each command runs in a run cgroup of its own under the
// sandbox's parent, what it leaves running is dead when its end is
// reported, exit statuses and signals come through, and the run cgroups
// and their parent are removed afterwards.
func TestV2RunCgroups(t *testing.T) {
	mount := mountV2(t)
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	if s.Mode() != InForceBwrap {
		t.Skipf("no bubblewrap here: %s", s.Info().Reason)
	}
	if s.cgroups == nil || len(s.cgroups.hiers) != 1 || !s.cgroups.hiers[0].v2 {
		t.Fatalf("the sandbox does not use the cgroup2 hierarchy at %s: %+v", mount, s.cgroups)
	}
	base := s.cgroups.hiers[0].base
	ws := onDisk(t)
	marker := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, 3)
	leftovers := fmt.Sprintf(`sleep %[1]s1 >/dev/null 2>&1 & setsid sleep %[1]s2 >/dev/null 2>&1 & (sleep %[1]s3 >/dev/null 2>&1 &); echo spawned`, marker)
	seen := map[string]bool{}
	check := func(what string, got reported, code, signal int) {
		t.Helper()
		dir := filepath.Join(mount, got.cgroup)
		if got.cgroup == "" || filepath.Dir(dir) != base || !strings.HasPrefix(filepath.Base(dir), "run-") {
			t.Errorf("%s: ran in cgroup %q, not in a run cgroup under %s", what, got.cgroup, base)
		}
		if seen[dir] {
			t.Errorf("%s: ran in an earlier command's cgroup %s", what, dir)
		}
		seen[dir] = true
		if len(got.left) > 0 {
			t.Errorf("%s: still running when its end was reported: %v", what, got.left)
		}
		if got.exit.Code != code || got.exit.Signal != signal {
			t.Errorf("%s: exit %+v, want code %d, signal %d", what, got.exit, code, signal)
		}
	}
	check("leftovers", runReported(t, s, Run{Workspace: ws}, leftovers, marker), 0, 0)
	check("exit 7", runReported(t, s, Run{Workspace: ws}, "exit 7", marker), 7, 0)
	check("SIGTERM", runReported(t, s, Run{Workspace: ws}, "kill -TERM $$", marker), 128+15, 15)
	session := Run{Workspace: ws, Session: "a"}
	for i := range 3 {
		got := runReported(t, s, session, leftovers+"; exit 3", marker)
		if i > 0 && !got.reused {
			t.Errorf("the session's command %d did not get its kept sandbox", i+1)
		}
		check(fmt.Sprintf("session command %d", i+1), got, 3, 0)
	}
	check("session SIGKILL", runReported(t, s, session, "kill -KILL $$", marker), 128+9, 9)
	t.Logf("%d runs in cgroups under %s", len(seen), base)
	s.Close()
	for dir := range seen {
		testwait.Until(t, testwait.Limit, "the removal of run cgroup "+dir, func() bool {
			_, err := os.Stat(dir)
			return os.IsNotExist(err)
		})
	}
	testwait.Until(t, testwait.Limit, "the removal of the limit cgroups' parent "+base, func() bool {
		_, err := os.Stat(base)
		return os.IsNotExist(err)
	})
}

// TestV2RunCgroupsOfOwnSandboxes: runs that are not handed to a sandbox
// started ahead (a bubblewrap of their own, Landlock) join a run cgroup
// of their own through the helper, and what they leave running, beyond
// the reach of a process group kill (setsid, a double fork), ends with
// the run's cgroup (cgroup.kill), which is then removed.
func TestV2RunCgroupsOfOwnSandboxes(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			mount := mountV2(t)
			s := newTest(t, Config{Mode: mode}, "")
			if s.cgroups == nil || len(s.cgroups.hiers) != 1 || !s.cgroups.hiers[0].v2 {
				t.Fatalf("the sandbox does not use the cgroup2 hierarchy at %s: %+v", mount, s.cgroups)
			}
			base := s.cgroups.hiers[0].base
			ws := onDisk(t)
			marker := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, 5)
			o := runIn(t, s, Run{Workspace: ws}, fmt.Sprintf(
				// It waits for the daemon to have left the group: a process
				// group kill before its setsid would end it all the same.
				`grep '^0::' /proc/self/cgroup >.cgroup-line
				(setsid sh -c 'echo $$ >.daemon; exec sleep %[1]s1' </dev/null >/dev/null 2>&1 &)
				until [ -s .daemon ]; do sleep 0.01; done; exit 4`, marker))
			if o.code != 4 {
				t.Errorf("exit %d, want 4: %s", o.code, o.out)
			}
			line, _ := os.ReadFile(filepath.Join(ws, ".cgroup-line"))
			dir := filepath.Join(mount, strings.TrimPrefix(strings.TrimSpace(string(line)), "0::"))
			if filepath.Dir(dir) != base || !strings.HasPrefix(filepath.Base(dir), "run-") {
				t.Errorf("ran in cgroup %q, not in a run cgroup under %s", line, base)
			}
			testwait.Until(t, testwait.Limit, "the end of what the run left", func() bool {
				return len(testproc.Matching("sleep "+marker)) == 0
			})
			s.Close()
			for _, d := range []string{dir, base} {
				testwait.Until(t, testwait.Limit, "the removal of cgroup "+d, func() bool {
					_, err := os.Stat(d)
					return os.IsNotExist(err)
				})
			}
		})
	}
}

// TestV2StaleLimitCgroupsSwept: the limit cgroups a toolgate that has
// ended left in the v2 hierarchy are removed when a sandbox is made, as
// they are in v1 hierarchies.
func TestV2StaleLimitCgroupsSwept(t *testing.T) {
	mount := mountV2(t)
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(mount, fmt.Sprintf("toolgate-limits-%d-1", ended.Process.Pid))
	if err := os.MkdirAll(filepath.Join(stale, "run-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.Remove(filepath.Join(stale, "run-1"))
		_ = os.Remove(stale)
	})
	s := newTest(t, Config{Mode: ModeBwrap}, "")
	if s.cgroups == nil || len(s.cgroups.hiers) != 1 || !s.cgroups.hiers[0].v2 {
		t.Fatalf("the sandbox does not use the cgroup2 hierarchy at %s: %+v", mount, s.cgroups)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale limit cgroup %s: %v, want removed", stale, err)
	}
}
