package process

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Where the system lets toolgate make cgroups (cgroup v2 with write access
// below its own cgroup), each run starts inside a cgroup of its own, placed
// there by the kernel as the shell is created (CLONE_INTO_CGROUP). A child
// that calls setsid leaves the process group but never the cgroup, so a
// timeout, a cancel or stray processes holding the output pipes end with
// cgroup.kill taking every process the command started. Elsewhere runs fall
// back to the process group alone.

// cgroups is the parent of the runs' cgroups, found at the first run.
var cgroups = sync.OnceValue(findCgroupParent)

// cgroupParent makes and removes the runs' cgroups.
type cgroupParent struct {
	dir  string
	next atomic.Int64

	mu sync.Mutex
	// busy are cgroups of finished runs that still held processes (a
	// daemon the command started on purpose): they are removed once empty.
	busy []string
}

// runCgroup is one run's cgroup.
type runCgroup struct {
	parent *cgroupParent
	dir    string
	fd     *os.File
}

// findCgroupParent makes toolgate-<pid> below toolgate's own cgroup and
// checks that a process can be started into a cgroup there; nil when any
// of it is not possible.
func findCgroupParent() *cgroupParent {
	mount, own, err := ownCgroup2()
	if err != nil {
		return nil
	}
	sweepStale(filepath.Join(mount, own))
	dir := filepath.Join(mount, own, fmt.Sprintf("toolgate-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil
	}
	p := &cgroupParent{dir: dir}
	if !p.probe() {
		_ = os.Remove(dir)
		return nil
	}
	return p
}

// sweepStale removes what toolgate processes that have ended left in
// parent: their emptied run cgroups and then their own.
func sweepStale(parent string) {
	olds, _ := filepath.Glob(filepath.Join(parent, "toolgate-*"))
	for _, old := range olds {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(old), "toolgate-"))
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		runs, _ := filepath.Glob(filepath.Join(old, "run-*"))
		for _, r := range runs {
			_ = os.Remove(r) // only an empty cgroup goes
		}
		_ = os.Remove(old)
	}
}

// probe starts /bin/true into a fresh cgroup.
func (p *cgroupParent) probe() bool {
	cg, err := p.make()
	if err != nil {
		return false
	}
	defer cg.remove()
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.fd.Fd())}
	return cmd.Run() == nil
}

// make creates a run's cgroup, first removing finished runs' cgroups that
// have emptied since.
func (p *cgroupParent) make() (*runCgroup, error) {
	p.mu.Lock()
	busy := p.busy[:0]
	for _, d := range p.busy {
		if os.Remove(d) != nil {
			busy = append(busy, d)
		}
	}
	p.busy = busy
	p.mu.Unlock()
	dir := filepath.Join(p.dir, fmt.Sprintf("run-%d", p.next.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	fd, err := os.Open(dir)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	return &runCgroup{parent: p, dir: dir, fd: fd}, nil
}

// kill ends every process in the cgroup.
func (cg *runCgroup) kill() {
	_ = os.WriteFile(filepath.Join(cg.dir, "cgroup.kill"), []byte("1"), 0)
}

// remove deletes the cgroup, or leaves it to a later run while processes
// the command meant to outlive it are still inside.
func (cg *runCgroup) remove() {
	_ = cg.fd.Close()
	if os.Remove(cg.dir) != nil {
		cg.parent.mu.Lock()
		cg.parent.busy = append(cg.parent.busy, cg.dir)
		cg.parent.mu.Unlock()
	}
}

// ownCgroup2 returns the cgroup2 mount point and this process's cgroup
// path in it.
func ownCgroup2() (mount, own string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source super
		fields := strings.Fields(sc.Text())
		for i, fld := range fields {
			if fld == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				mount = fields[4]
			}
		}
	}
	if mount == "" {
		return "", "", errors.New("no cgroup2 mount")
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return mount, rest, nil
		}
	}
	return "", "", errors.New("no cgroup2 membership")
}
