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

	"golang.org/x/sys/unix"
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
	// free are empty cgroups of finished runs, kept open for the next
	// runs: making and removing a cgroup costs more than the rest of
	// starting `true`. Speed only: BenchmarkRunTrueVsBash
	// (./internal/process/, docs/benchmarks.md), when cgroups are there.
	free []*runCgroup
	// removed: RemoveCgroups ran. Runs still finishing remove their
	// cgroup (and the parent once it is empty) instead of keeping it; a
	// later run makes the parent again.
	removed bool
}

// maxFreeCgroups bounds the empty cgroups kept for reuse (and the
// descriptors they hold); more are removed.
const maxFreeCgroups = 16

// runCgroup is one run's cgroup.
type runCgroup struct {
	parent *cgroupParent
	dir    string
	fd     *os.File
	// events is cgroup.events, opened at the first check and kept with
	// the cgroup: it is read again from its start (pread) for each run.
	events int
	// killed: cgroup.kill was written. The kernel goes on killing what
	// starts in such a cgroup, so it is never reused.
	killed atomic.Bool
}

// cgroupsLooked is set once cgroups has run: RemoveCgroups then has
// something to remove, and does not make the parent only to remove it.
var cgroupsLooked atomic.Bool

// RemoveCgroups removes, at shutdown, the cgroups toolgate made: the empty
// ones kept for later runs, those of finished runs that have emptied
// since, and their parent. Left behind, they stayed as empty directories
// below the service's cgroup until the next start swept them (and forever
// when toolgate was not started again). A cgroup still holding a process
// (a daemon a command left on purpose) stays; the next start removes it
// once it is empty. No run may start after it.
func RemoveCgroups() {
	if !cgroupsLooked.Load() {
		return
	}
	p := cgroups()
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.removed = true
	for _, cg := range p.free {
		cg.close()
		_ = syscall.Rmdir(cg.dir)
	}
	p.free = nil
	p.sweepBusyLocked()
	_ = syscall.Rmdir(p.dir)
}

// sweepBusyLocked removes the cgroups of finished runs that held
// processes then and have emptied since.
func (p *cgroupParent) sweepBusyLocked() {
	busy := p.busy[:0]
	for _, d := range p.busy {
		if syscall.Rmdir(d) != nil {
			busy = append(busy, d)
		}
	}
	p.busy = busy
}

// findCgroupParent makes toolgate-<pid> below toolgate's own cgroup and
// checks that a process can be started into a cgroup there; nil when any
// of it is not possible.
func findCgroupParent() *cgroupParent {
	cgroupsLooked.Store(true)
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
		for _, cg := range p.free {
			cg.close()
			_ = syscall.Rmdir(cg.dir)
		}
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
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	inCgroup(cmd.SysProcAttr, cg.fd)
	return cmd.Run() == nil
}

// make returns an empty cgroup for a run: one a finished run left empty,
// else a new one. It first removes the cgroups of finished runs that held
// processes then and have emptied since.
func (p *cgroupParent) make() (*runCgroup, error) {
	p.mu.Lock()
	p.sweepBusyLocked()
	if p.removed {
		// A server started again in this process after a stop.
		if err := os.Mkdir(p.dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			p.mu.Unlock()
			return nil, err
		}
		p.removed = false
	}
	var cg *runCgroup
	if n := len(p.free); n > 0 {
		cg = p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
	}
	p.mu.Unlock()
	if cg != nil {
		return cg, nil
	}
	dir := filepath.Join(p.dir, fmt.Sprintf("run-%d", p.next.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	fd, err := os.Open(dir)
	if err != nil {
		_ = syscall.Rmdir(dir)
		return nil, err
	}
	return &runCgroup{parent: p, dir: dir, fd: fd, events: -1}, nil
}

// releaseLocked keeps an empty cgroup for the next run, or removes it
// when enough are kept.
func (p *cgroupParent) releaseLocked(cg *runCgroup) {
	if len(p.free) < maxFreeCgroups && !p.removed {
		p.free = append(p.free, cg)
		return
	}
	cg.close()
	_ = syscall.Rmdir(cg.dir)
	if p.removed {
		_ = syscall.Rmdir(p.dir) // the last run to finish after a stop
	}
}

// close closes the descriptors the cgroup holds.
func (cg *runCgroup) close() {
	_ = cg.fd.Close()
	if cg.events >= 0 {
		_ = unix.Close(cg.events)
		cg.events = -1
	}
}

// kill ends every process in the cgroup.
func (cg *runCgroup) kill() {
	cg.killed.Store(true)
	_ = os.WriteFile(filepath.Join(cg.dir, "cgroup.kill"), []byte("1"), 0)
}

// remove gives the cgroup back for the next runs when the run left it
// empty and did not kill in it; else it removes it, or leaves that to a
// later run while processes the command meant to outlive it are still
// inside.
func (cg *runCgroup) remove() {
	empty := !cg.killed.Load() && cg.empty()
	cg.parent.mu.Lock()
	defer cg.parent.mu.Unlock()
	if empty {
		cg.parent.releaseLocked(cg)
		return
	}
	cg.close()
	if syscall.Rmdir(cg.dir) != nil {
		cg.parent.busy = append(cg.parent.busy, cg.dir)
	} else if cg.parent.removed {
		_ = syscall.Rmdir(cg.parent.dir)
	}
}

// empty reports whether no process is left in the cgroup. Nothing but a
// run of toolgate's puts a process there, so an empty cgroup stays empty
// until it is given to a run.
func (cg *runCgroup) empty() bool {
	if cg.events < 0 {
		fd, err := unix.Openat(int(cg.fd.Fd()), "cgroup.events", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		cg.events = fd
	}
	// Reading from offset 0 makes the kernel write the file afresh.
	var buf [128]byte
	n, err := unix.Pread(cg.events, buf[:], 0)
	if err != nil || n <= 0 {
		return false
	}
	// "populated 0" or "populated 1", then other keys.
	for line := range strings.SplitSeq(string(buf[:n]), "\n") {
		if v, ok := strings.CutPrefix(line, "populated "); ok {
			return v == "0"
		}
	}
	return false
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
