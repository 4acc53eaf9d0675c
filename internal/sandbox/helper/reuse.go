package helper

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A sandbox that served a command of a session may serve the session's
// next (Request.Reuse). Nothing of the command is left running by then
// (child.go), but the command shared the sandbox with the helper and
// could change what it can write: the sandbox's /tmp and /dev (tmpfs of
// its own), and those of the helper's attributes that a process of the
// same user may set on another without ptrace and that a child inherits
// (its rlimits, through prlimit; its locked thread's nice value, CPU
// affinity, scheduling policy and I/O priority; its oom_score_adj). So
// before it takes the next command the helper empties /tmp and /dev/shm,
// removes what was added to /dev, and checks that /dev's entries and its
// own attributes are as they were when the sandbox was made; if any is
// not, the sandbox is discarded and the session's next command gets a
// sandbox of its own. Meanwhile, while the command still runs, its
// locked thread has moved into the next command's limit cgroups (cgroup
// v1), or kept the next cgroup v2 directory to clone the command into:
// each command has cgroups of its own, and the move waits for the kernel
// off the commands' path.

// sandboxState is what the helper notes when the sandbox is made, and
// finds again before each later command.
type sandboxState struct {
	files map[string]fileID // the sandbox's /tmp and /dev (notedRoots)
	tid   int               // the locked thread, which starts the commands
	attrs ownAttrs
}

// fileID identifies a file: a command that replaced /dev/null by a file
// of its own would read and write through the next command's, and one
// that took the permissions off a directory on the way to the workspace
// (bound below /tmp when it lies there) would keep the next from it.
type fileID struct {
	dev, ino, rdev uint64
	mode, uid      uint32
}

// notedRoots are the sandbox's own writable file systems: /tmp and /dev
// (and /dev/shm), tmpfs that bubblewrap made for it alone.
var notedRoots = []string{"/tmp", "/dev", "/dev/shm"}

// rootOf is the innermost of notedRoots that p lies below.
func rootOf(p string) string {
	root := ""
	for _, r := range notedRoots {
		if strings.HasPrefix(p, r+"/") && len(r) > len(root) {
			root = r
		}
	}
	return root
}

// ownAttrs are the helper's attributes that its command inherits.
type ownAttrs struct {
	rlimits  [16]syscall.Rlimit // every resource (RLIM_NLIMITS)
	nice     int
	affinity unix.CPUSet
	policy   uintptr
	ioprio   uintptr
	oomAdj   string
}

// noteSandbox notes the sandbox's /tmp and /dev and the helper's
// attributes. It runs on the locked thread.
func noteSandbox() sandboxState {
	tid := unix.Gettid()
	return sandboxState{files: noted(), tid: tid, attrs: attrs(tid)}
}

// noted lists notedRoots and what is below them (tree).
func noted() map[string]fileID {
	files := map[string]fileID{}
	for _, root := range notedRoots {
		maps.Copy(files, tree(root))
	}
	return files
}

// tree lists root and what is below it on root's file system, mount
// points (bubblewrap's binds of the workspace or of masks when they lie
// there) listed but not entered.
func tree(root string) map[string]fileID {
	out := map[string]fileID{}
	var rootDev uint64
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) != nil {
			return nil
		}
		out[p] = fileID{dev: st.Dev, ino: st.Ino, rdev: st.Rdev, mode: st.Mode, uid: st.Uid}
		if p == root {
			rootDev = st.Dev
		} else if d != nil && d.IsDir() && st.Dev != rootDev {
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// attrs reads the helper's inheritable attributes: the process's, and
// those of its thread tid.
func attrs(tid int) ownAttrs {
	var a ownAttrs
	for res := range a.rlimits {
		_ = syscall.Getrlimit(res, &a.rlimits[res])
	}
	a.nice, _ = unix.Getpriority(unix.PRIO_PROCESS, tid)
	_ = unix.SchedGetaffinity(tid, &a.affinity)
	a.policy, _, _ = unix.Syscall(unix.SYS_SCHED_GETSCHEDULER, uintptr(tid), 0, 0)
	a.ioprio, _, _ = unix.Syscall(unix.SYS_IOPRIO_GET, 1 /* IOPRIO_WHO_PROCESS */, uintptr(tid), 0)
	b, _ := os.ReadFile("/proc/self/oom_score_adj")
	a.oomAdj = string(b)
	return a
}

// next takes the Next message with the next command's cgroups and joins
// them, on the locked thread; inbox is the helper's (newInbox).
func next(spec Spec, inbox []byte) error {
	_, fds, err := receive(spec, nextMessage, inbox)
	if err != nil {
		return err
	}
	defer func() {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
	}()
	for _, fd := range fds[:spec.JoinTasks] {
		if _, err := syscall.Write(fd, []byte("0")); err != nil {
			return fmt.Errorf("cannot join the next command's limit cgroup: %w", err)
		}
	}
	if spec.CgroupDir > 0 {
		return syscall.Dup3(fds[spec.JoinTasks], spec.CgroupDir, syscall.O_CLOEXEC)
	}
	return nil
}

// restore removes what the command added to the sandbox's /tmp and
// /dev, never crossing into a mount, and checks that the rest is as it
// was and the helper's attributes too. The file systems are listed
// again only when something was removed: a command that added nothing
// (most) is checked by the first listing, which took half of restore's
// time, and the session's next command waits for restore (its sandbox
// is kept once the helper is done). Speed only: bench/peers/run.sh
// (`true` via execute_command with the defaults; docs/benchmarks.md has
// restore's time from the server's own timing).
func restore(made sandboxState) error {
	if attrs(made.tid) != made.attrs {
		return errors.New("the helper's limits or scheduling changed during the command")
	}
	now := noted()
	removed := false
	for p := range now {
		if _, ok := made.files[p]; !ok {
			if err := removeTree(p, made.files[rootOf(p)].dev); err != nil {
				return fmt.Errorf("the sandbox could not be emptied: %w", err)
			}
			removed = true
		}
	}
	if removed {
		now = noted()
	}
	if !maps.Equal(now, made.files) {
		return errors.New("the sandbox's /tmp or /dev changed during the command")
	}
	return nil
}

// removeTree removes p and what is below it, all on the file system dev:
// it refuses to enter another (a bind mount of the workspace moved along
// with a renamed directory). Directories the command took the
// permissions off are given them back first (the helper is their owner,
// without capabilities bound by permissions).
func removeTree(p string, dev uint64) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return nil // gone with its parent
	}
	if st.Dev != dev {
		return fmt.Errorf("%s is a mount", p)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return syscall.Unlink(p)
	}
	_ = os.Chmod(p, 0o700)
	entries, err := os.ReadDir(p)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := removeTree(filepath.Join(p, e.Name()), dev); err != nil {
			return err
		}
	}
	return syscall.Rmdir(p)
}
