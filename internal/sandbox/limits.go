package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits on processes and memory go through cgroups where toolgate may
// make them: cgroup v2 with the pids and memory controllers delegated, or
// the v1 pids and memory hierarchies. Each run gets a cgroup of its own
// in each; the helper joins them through fds opened here before it execs
// the command, so everything the command starts is counted. CPU time is
// an rlimit, as are the limits no cgroup can take (RLIMIT_DATA for
// memory; processes are then bounded only for non-root users).

// parents numbers the limit cgroup parents made by this process.
var parents atomic.Int64

// limitCgroups are the parents of the runs' limit cgroups.
type limitCgroups struct {
	limits Limits
	hiers  []limitHier
	next   atomic.Int64
	mu     sync.Mutex
	busy   []string // run cgroups that still held processes when finished
	// ready holds the next run's cgroups with a thread already in them
	// (see prejoin.go); filling is set while it is being made.
	ready   chan *prejoined
	filling atomic.Bool
	closed  atomic.Bool
	// removing counts the runs whose cgroups are being removed in the
	// background (finishLater): Close waits for them.
	removing atomic.Int64
	// byPath reads the runs' event files by path (the plain alternative
	// in BenchmarkLimitEvents).
	byPath bool
}

// limitHier is one hierarchy's parent directory and what it limits.
type limitHier struct {
	base   string
	mount  string // the hierarchy's mount point (v1)
	home   string // toolgate's own cgroup in it (v1)
	v2     bool
	pids   bool
	memory bool
}

// runLimits are one run's limit cgroups.
type runLimits struct {
	parent *limitCgroups
	dirs   []string
	hiers  []limitHier
	events []eventFiles  // each dir's event files, opened ahead (limits_events.go)
	stop   chan struct{} // closed by finish
	done   chan struct{} // closed when the watch has ended (or never began)
	hit    chan struct{} // closed when a limit was reached
	// watching starts the watch once: at once for a run's own cgroups,
	// when the run takes them for those made ahead (prejoin.go, warm.go),
	// so that cgroups waiting for a run are not polled.
	watching sync.Once
}

// startWatch starts watching the run's limits, unless it already was.
func (r *runLimits) startWatch() {
	r.watching.Do(func() { go r.watch() })
}

// pidsPoll is how often a run's pids cgroup is checked for a fork that
// the limit refused (v1 cannot notify).
const pidsPoll = 100 * time.Millisecond

// watch ends the run once it has reached a limit: a command that keeps
// retrying fork (a fork bomb) would otherwise hold the process limit, and
// one whose processes the OOM killer picks off one by one would go on,
// until its timeout. It signals hit, so that the runner kills the whole
// run, and kills what is in the cgroups itself; survivors may still fork
// between a read of the process list and the kills, so it keeps killing
// until finish.
func (r *runLimits) watch() {
	defer close(r.done)
	t := time.NewTicker(pidsPoll)
	defer t.Stop()
	tripped := false
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		if !tripped && r.reached() == "" {
			continue
		}
		if !tripped {
			tripped = true
			close(r.hit)
		}
		for i, d := range r.dirs {
			killAll(d, r.hiers[i].v2)
		}
	}
}

// reached names the limits the run has reached, "" for none.
func (r *runLimits) reached() string {
	var hit []string
	for i, dir := range r.dirs {
		h := r.hiers[i]
		var ev eventFiles
		if i < len(r.events) {
			ev = r.events[i]
		}
		if h.pids && eventCountIn(ev.pids, filepath.Join(dir, "pids.events"), "max") > 0 {
			hit = append(hit, fmt.Sprintf("the process limit (%d)", r.parent.limits.Processes))
		}
		if h.memory && eventCountIn(ev.memory, filepath.Join(dir, memoryEvents(h)), "oom_kill") > 0 {
			hit = append(hit, fmt.Sprintf("the memory limit (%d MiB)", r.parent.limits.MemoryBytes>>20))
		}
	}
	return strings.Join(hit, " and ")
}

// newLimitCgroups finds where limit cgroups can be made; nil where
// nowhere, or when no limit asks for one.
func newLimitCgroups(l Limits) *limitCgroups {
	if l.Processes <= 0 && l.MemoryBytes <= 0 {
		return nil
	}
	mounts, err := cgroupMounts()
	if err != nil {
		return nil
	}
	own, err := ownCgroups()
	if err != nil {
		return nil
	}
	bare := v2TestMount != ""
	if bare {
		mounts = map[string]string{"": v2TestMount}
	}
	lc := &limitCgroups{limits: l, ready: make(chan *prejoined, 1)}
	// One parent per Sandbox: several in one process (tests) must not
	// share run cgroup names.
	name := fmt.Sprintf("toolgate-limits-%d-%d", os.Getpid(), parents.Add(1))
	if m, ok := mounts[""]; ok {
		sweepStale(filepath.Join(m, own[""]))
		if h, ok := v2Hier(filepath.Join(m, own[""], name), bare); ok {
			lc.hiers = append(lc.hiers, h)
		}
	}
	for _, ctl := range []string{"pids", "memory"} {
		m, ok := mounts[ctl]
		if !ok || lc.has(ctl) {
			continue
		}
		sweepStale(filepath.Join(m, own[ctl]))
		base := filepath.Join(m, own[ctl], name)
		if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			continue
		}
		lc.hiers = append(lc.hiers, limitHier{base: base, mount: m, home: filepath.Join(m, own[ctl]), pids: ctl == "pids", memory: ctl == "memory"})
	}
	if len(lc.hiers) == 0 {
		return nil
	}
	return lc
}

func (lc *limitCgroups) has(ctl string) bool {
	for _, h := range lc.hiers {
		if (ctl == "pids" && h.pids) || (ctl == "memory" && h.memory) {
			return true
		}
	}
	return false
}

// v2TestMount, set only by tests (and only while no Sandbox is being
// made), names a cgroup2 mount to use as the only limit hierarchy, with
// or without the pids and memory controllers: it lets the v2 path (run
// cgroups, CLONE_INTO_CGROUP, cgroup.kill) run where the machine has
// those controllers on v1 only (v2_test.go).
var v2TestMount string

// v2Hier makes base and delegates pids and memory to its children, where
// the parent has them. A hierarchy with neither is refused unless bare
// (tests only: v2TestMount), as it would limit nothing.
func v2Hier(base string, bare bool) (limitHier, bool) {
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return limitHier{}, false
	}
	ctls, _ := os.ReadFile(filepath.Join(base, "cgroup.controllers"))
	h := limitHier{base: base, v2: true}
	for _, c := range strings.Fields(string(ctls)) {
		if (c == "pids" || c == "memory") &&
			os.WriteFile(filepath.Join(base, "cgroup.subtree_control"), []byte("+"+c), 0) == nil {
			h.pids = h.pids || c == "pids"
			h.memory = h.memory || c == "memory"
		}
	}
	if !h.pids && !h.memory && !bare {
		_ = os.Remove(base)
		return limitHier{}, false
	}
	return h, true
}

// make creates a run's cgroups with the limits written and returns their
// cgroup.procs files, opened for the helper to join. The limits are
// watched from the first startWatch.
func (lc *limitCgroups) make() (*runLimits, []*os.File, error) {
	return lc.makeRun(0)
}

// makeRun is make with v1 pids cgroups allowing slack tasks beyond the
// process limit: the thread of a helper that starts the command as its
// child stays in them (helper/child.go).
func (lc *limitCgroups) makeRun(slack int) (*runLimits, []*os.File, error) {
	lc.sweep()
	r := &runLimits{parent: lc}
	var files []*os.File
	n := lc.next.Add(1)
	for _, h := range lc.hiers {
		dir := filepath.Join(h.base, fmt.Sprintf("run-%d", n))
		if err := os.Mkdir(dir, 0o755); err != nil {
			continue
		}
		r.dirs, r.hiers = append(r.dirs, dir), append(r.hiers, h)
		if !lc.byPath {
			r.events = append(r.events, openEvents(dir, h))
		}
		write := func(name, v string) { _ = os.WriteFile(filepath.Join(dir, name), []byte(v), 0) }
		if h.pids && lc.limits.Processes > 0 {
			// A process limit that did not take would let a fork bomb
			// fill the machine: read it back, and refuse the run if it
			// is not what was written.
			want := strconv.Itoa(lc.limits.Processes)
			if !h.v2 {
				want = strconv.Itoa(lc.limits.Processes + slack)
			}
			write("pids.max", want)
			if got, err := os.ReadFile(filepath.Join(dir, "pids.max")); err != nil || strings.TrimSpace(string(got)) != want {
				for _, f := range files {
					_ = f.Close()
				}
				r.finish()
				return nil, nil, fmt.Errorf("the process limit could not be set in %s (pids.max reads %q)", dir, strings.TrimSpace(string(got)))
			}
		}
		if h.memory && lc.limits.MemoryBytes > 0 {
			mem := strconv.FormatInt(lc.limits.MemoryBytes, 10)
			if h.v2 {
				write("memory.max", mem)
				write("memory.swap.max", "0")
			} else {
				write("memory.limit_in_bytes", mem)
			}
		}
		f, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
		if err != nil {
			continue
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		r.finish()
		return nil, nil, errors.New("no limit cgroup could be made")
	}
	r.stop, r.done, r.hit = make(chan struct{}), make(chan struct{}), make(chan struct{})
	return r, files, nil
}

// rlimitsLeft are the limits the run's cgroups do not enforce.
func (r *runLimits) rlimitsLeft(l Limits) Limits {
	for _, h := range r.hiers {
		if h.pids {
			l.Processes = 0
		}
		if h.memory {
			l.MemoryBytes = 0
		}
	}
	return l
}

// finish reads which limit the run hit, kills what is left in its
// cgroups and removes them.
func (r *runLimits) finish() string {
	hit := r.end()
	r.remove()
	return hit
}

// finishLater is finish with the emptied cgroups removed in the
// background: removing a cgroup took 0.4-3.7 ms here (load 20; a v1
// memory cgroup's removal waits on the kernel), most of what a run's
// Finish cost, after its command had ended and before its result could
// be answered. Speed only: BenchmarkSequentialSandboxedTrue
// (./internal/sandbox/, its finish median) defends it.
func (r *runLimits) finishLater() string {
	hit := r.end()
	r.parent.removing.Add(1)
	go func() {
		defer r.parent.removing.Add(-1)
		r.remove()
	}()
	return hit
}

// end stops the watch, reads which limit the run hit and kills what is
// left in its cgroups.
func (r *runLimits) end() string {
	if r.stop != nil {
		r.watching.Do(func() { close(r.done) }) // never watched
		close(r.stop)
		<-r.done
	}
	hit := r.reached()
	for i, dir := range r.dirs {
		// Survivors may fork between a read of the list and the kills:
		// kill until the cgroup is empty (or give up and leave it busy).
		for range 100 {
			if !killAll(dir, r.hiers[i].v2) {
				break
			}
		}
	}
	return hit
}

// remove removes the run's cgroups, once emptied; one that cannot be
// removed yet is left to a later sweep.
func (r *runLimits) remove() {
	for _, e := range r.events {
		e.close()
	}
	for _, dir := range r.dirs {
		if os.Remove(dir) != nil {
			r.parent.mu.Lock()
			r.parent.busy = append(r.parent.busy, dir)
			r.parent.mu.Unlock()
		}
	}
	r.parent.removeParents()
}

// removeParents removes, once the sandbox is closed, the emptied run
// cgroups and the parents themselves. It runs at Close and again as each
// run still going then finishes, so the last one out removes them: left
// behind, every server start (and every sandbox a test made) added an
// empty directory in each hierarchy that no later start swept when the
// service's own cgroup changed between starts.
func (lc *limitCgroups) removeParents() {
	if !lc.closed.Load() {
		return
	}
	lc.sweep()
	for _, h := range lc.hiers {
		_ = os.Remove(h.base) // only an empty cgroup goes
	}
}

// closeParents is removeParents at Close: the processes of the sandboxes
// just discarded may still be leaving their cgroups (a PID namespace's
// processes go after its init was reaped), and finished runs' cgroups may
// still be being removed (finishLater), so it retries for a moment,
// killing what is still there.
func (lc *limitCgroups) closeParents() {
	deadline := time.Now().Add(closeWait)
	for {
		lc.removeParents()
		lc.mu.Lock()
		busy := slices.Clone(lc.busy)
		lc.mu.Unlock()
		if len(busy) == 0 && lc.removing.Load() == 0 || time.Now().After(deadline) {
			return
		}
		for _, d := range busy {
			for _, h := range lc.hiers {
				if strings.HasPrefix(d, h.base+"/") {
					killAll(d, h.v2)
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// closeWait bounds how long Close waits for the last processes to leave
// the runs' cgroups.
const closeWait = 2 * time.Second

// sweep removes finished runs' cgroups that have emptied since.
func (lc *limitCgroups) sweep() {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	busy := lc.busy[:0]
	for _, d := range lc.busy {
		if os.Remove(d) != nil {
			busy = append(busy, d)
		}
	}
	lc.busy = busy
}

// killAll kills every process still in a run's cgroup and reports
// whether there were any.
func killAll(dir string, v2 bool) bool {
	data, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	// toolgate itself is listed while one of its threads waits in the
	// cgroup to start the run's command (prejoin.go): never kill it.
	self := strconv.Itoa(os.Getpid())
	pids := slices.DeleteFunc(strings.Fields(string(data)), func(p string) bool { return p == self })
	if len(pids) == 0 {
		return false
	}
	if v2 && os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return true
	}
	for _, f := range pids {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return true
}

// cgroupMounts maps each v1 controller to its mount point, and "" to the
// cgroup2 mount.
func cgroupMounts() (map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source super
		fields := strings.Fields(sc.Text())
		for i, fld := range fields {
			if fld != "-" || i+3 >= len(fields) || len(fields) < 5 {
				continue
			}
			switch fields[i+1] {
			case "cgroup2":
				out[""] = fields[4]
			case "cgroup":
				for _, o := range strings.Split(fields[i+3], ",") {
					if o == "pids" || o == "memory" {
						out[o] = fields[4]
					}
				}
			}
		}
	}
	return out, sc.Err()
}

// ownCgroups maps each v1 controller, and "" for v2, to this process's
// cgroup path. It reads the calling thread's: on v1 /proc/self/cgroup is
// the main thread's, which may be a pre-joined thread of another Sandbox
// waiting in a run's cgroups (prejoin.go), and the new parent would then
// be made inside that run's cgroup. No goroutine but a pre-joined one
// runs on such a thread.
func ownCgroups() (map[string]string, error) {
	data, err := os.ReadFile("/proc/thread-self/cgroup")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// sweepStale removes the limit cgroups that toolgate processes which have
// ended left in dir (only empty cgroups can go).
func sweepStale(dir string) {
	olds, _ := filepath.Glob(filepath.Join(dir, "toolgate-limits-*"))
	for _, old := range olds {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(old), "toolgate-limits-"), "-", 2)[0])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		runs, _ := filepath.Glob(filepath.Join(old, "run-*"))
		for _, r := range runs {
			_ = os.Remove(r)
		}
		_ = os.Remove(old)
	}
}
