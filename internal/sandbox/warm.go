package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

// Setting bubblewrap's namespaces and mounts up and starting the helper
// took most of what bwrap mode added to a short command (about 8 ms and
// 4 to 7 ms of some 20). So a run prepared with Run.Warm goes, where it
// can, to a sandbox started ahead of time: bubblewrap with the helper
// inside, confined and in the run's limit cgroups, waiting on a control
// socket for the command (helper/await.go). When a run takes it, the next
// one is started in the background, made for the same configuration; the
// last maxWarm configurations runs had keep one each.
//
// A sandbox started ahead of time is used only for a run whose bubblewrap
// command line and helper spec are exactly those it was made with: the
// same workspace, writable paths, masks (the ignore rules' included),
// network and program paths. Otherwise it is discarded and the run starts
// its own. Its mounts are also checked when the run comes: a mask
// on a path that has since been removed or renamed outside (an editor
// saving an ignored file anew) no longer covers that path, so such a
// sandbox is discarded as well.
//
// Each sandbox serves one run: the command's argv, environment, directory
// and standard streams come with the run, and the sandbox's bubblewrap is
// the run's process, which ends when the command does, as a bubblewrap
// started for the command would. It is started with an empty environment,
// so that nothing of an earlier run's shows in /proc/1/environ inside.

// warmWait bounds how long a run waits for a sandbox started ahead of time
// to answer (it may still be starting).
const warmWait = 10 * time.Second

// maxHandOver bounds the command line and environment handed to a sandbox
// started ahead of time (one message on the control socket); larger ones
// start a sandbox of their own.
const maxHandOver = 64 << 10

// warm is a sandbox started ahead of its run.
type warm struct {
	key    string    // the bubblewrap command line and spec it was made with
	cmd    *exec.Cmd // bubblewrap
	conn   *net.UnixConn
	limits *runLimits // nil without limit cgroups
	mounts []string   // the mount points its helper checks
	ids    []uint64   // their mounts' IDs as its helper noted them, if it could
	pid    int        // its helper's process, once it said it waits
	mntNS  *os.File   // its mount namespace, held while its run goes on (holdMounts)
	// nextLimits brings the next command's cgroups, given to the helper
	// of a sandbox that may be kept for its session (reuse.go).
	nextLimits chan *runLimits
	once       sync.Once
}

// maxWarm bounds the configurations that keep sandboxes started ahead
// (runs in several workspaces, commands beside subagent runners with the
// network on); the least recently used goes first.
const maxWarm = 4

// warmDepth is how many sandboxes one configuration keeps started ahead.
// With one, a caller that sends its next command as soon as the last one
// answered waited for most of a start: the sandbox taken was replaced
// only then. With two, each run takes the one started a run earlier.
// It exists for speed: BenchmarkSequentialSandboxedTrue
// (./internal/sandbox/) defends it.
const warmDepth = 2

// warmSlot holds the next runs' sandboxes, per key.
type warmSlot struct {
	depth int // sandboxes kept per key, warmDepth when 0
	// plainEnd leaves a run's mount namespace to its sandbox's exit and
	// removes its limit cgroups in Finish (the plain alternative to
	// holdMounts and finishLater in BenchmarkSequentialSandboxedTrue).
	plainEnd bool
	mu       sync.Mutex
	slots    map[string]*warmEntry
	clock    uint64
	closed   bool
}

// warmEntry is the next sandboxes for one key.
type warmEntry struct {
	ready   []*warm
	filling int           // sandboxes being started
	filled  chan struct{} // closed (and replaced) when one of those ends
	used    uint64        // when a run last had this key
}

// take returns a sandbox started ahead of time for key: one ready, else
// the next of those being started once it is (its start began before
// this run came, so it is ready sooner than one of the run's own), else
// nil.
func (ws *warmSlot) take(key string) *warm {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	e := ws.slots[key]
	if e == nil || ws.closed {
		return nil
	}
	ws.clock++
	e.used = ws.clock
	if len(e.ready) == 0 && e.filling > 0 {
		filled := e.filled
		ws.mu.Unlock()
		select {
		case <-filled:
		case <-time.After(warmWait):
		}
		ws.mu.Lock()
	}
	if len(e.ready) == 0 {
		return nil
	}
	w := e.ready[0]
	e.ready = slices.Delete(e.ready, 0, 1)
	return w
}

// refill starts sandboxes for key in the background, made like this
// run's, until warmDepth are ready or being started.
func (ws *warmSlot) refill(s *Sandbox, key string, args []string, spec helperSpec) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return
	}
	if ws.slots == nil {
		ws.slots = map[string]*warmEntry{}
	}
	e := ws.slots[key]
	if e == nil {
		if len(ws.slots) >= maxWarm && !ws.evict() {
			return
		}
		e = &warmEntry{filled: make(chan struct{})}
		ws.slots[key] = e
	}
	ws.clock++
	e.used = ws.clock
	depth := ws.depth
	if depth == 0 {
		depth = warmDepth
	}
	for len(e.ready)+e.filling < depth {
		e.filling++
		go func() {
			w, err := s.startWarm(key, args, spec)
			ws.mu.Lock()
			defer ws.mu.Unlock()
			e.filling--
			close(e.filled)
			e.filled = make(chan struct{})
			switch {
			case err != nil: // runs start their own
			case ws.closed:
				w.discard() // before filling drops to 0: close waits for it
			case len(e.ready) >= depth || ws.slots[key] != e:
				go w.discard()
			default:
				e.ready = append(e.ready, w)
			}
		}()
	}
}

// evict drops the least recently used key with no sandbox being started,
// discarding its sandboxes; it reports whether one was dropped.
func (ws *warmSlot) evict() bool {
	var oldest string
	var found *warmEntry
	for k, e := range ws.slots {
		if e.filling == 0 && (found == nil || e.used < found.used) {
			oldest, found = k, e
		}
	}
	if found == nil {
		return false
	}
	delete(ws.slots, oldest)
	for _, w := range found.ready {
		go w.discard()
	}
	found.ready = nil // a run waiting in take must not get them
	return true
}

// close discards the sandboxes waiting and stops making more; those being
// started are discarded once they are, before close returns.
func (ws *warmSlot) close() {
	ws.mu.Lock()
	ws.closed = true
	var ready []*warm
	for _, e := range ws.slots {
		ready = append(ready, e.ready...)
		e.ready = nil
	}
	ws.mu.Unlock()
	for _, w := range ready {
		w.discard()
	}
	deadline := time.After(warmWait)
	for {
		ws.mu.Lock()
		var filled chan struct{}
		for _, e := range ws.slots {
			if e.filling > 0 {
				filled = e.filled
				break
			}
		}
		ws.mu.Unlock()
		if filled == nil {
			return
		}
		select {
		case <-filled:
		case <-deadline:
			return
		}
	}
}

// warmKey is what a sandbox started ahead of time must have been made
// with to serve a run.
func warmKey(args []string, spec helperSpec) string {
	b, _ := json.Marshal(spec) // plain data: cannot fail
	return strings.Join(args, "\x00") + "\x00\x00" + string(b)
}

// prepareWarm hands the run to the sandbox started ahead of time when it
// fits, and has the next one started; it reports whether the run got one.
// args are bubblewrap's command line up to the helper, spec the helper's,
// both as for a sandbox of the run's own but without its directory.
func (s *Sandbox) prepareWarm(p *Prepared, argv []string, dir string, args []string, spec helperSpec, session string) bool {
	size := 0
	for _, a := range slices.Concat(argv, p.Env) {
		size += len(a) + 1
	}
	if size > maxHandOver {
		return false
	}
	key := warmKey(args, spec)
	if s.reusable(session, spec) {
		p.box, p.session = s, session
		if w := s.kept.take(session, key); w != nil {
			// The session's own, kept from its last command (reuse.go):
			// no sandbox is started for this one.
			p.warm, p.limits, p.reused = w, w.limits, true
			w.limits.startWatch()
			p.Argv, p.command, p.dir = argv, argv, dir
			p.Relayed, p.removeLater = true, true
			return true
		}
	}
	w := s.warm.take(key)
	s.warm.refill(s, key, args, spec)
	if w == nil {
		return false
	}
	if w.key != key || w.check() != nil {
		go w.discard()
		return false
	}
	p.warm, p.limits = w, w.limits
	p.removeLater = !s.warm.plainEnd
	if !s.warm.plainEnd {
		w.holdMounts()
	}
	if w.limits != nil {
		w.limits.startWatch()
	}
	p.Argv, p.command, p.dir = argv, argv, dir
	p.Relayed = true
	return true
}

// startWarm starts a sandbox whose helper waits for its command.
func (s *Sandbox) startWarm(key string, args []string, spec helperSpec) (*warm, error) {
	w := &warm{key: key}
	var files []*os.File
	if s.cgroups != nil {
		lim, tasks, dir, err := s.cgroups.makeForHelper()
		if err != nil {
			return nil, err
		}
		w.limits, files = lim, tasks
		spec.JoinTasks = len(tasks)
		if dir != nil {
			spec.CgroupDir = 3 + len(files)
			files = append(files, dir)
		}
		spec.Limits = lim.rlimitsLeft(s.limits)
	}
	closeFiles := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, seqpacketCloexec, 0)
	if err != nil {
		closeFiles()
		w.finishLimits()
		return nil, err
	}
	// The kernel attaches the sender's process id to each message the
	// helper sends: that of its "ready" names the process whose mounts
	// check reads.
	if err := passCred(fds[0]); err != nil {
		_ = syscall.Close(fds[0])
		_ = syscall.Close(fds[1])
		closeFiles()
		w.finishLimits()
		return nil, err
	}
	local, peer := os.NewFile(uintptr(fds[0]), "control"), os.NewFile(uintptr(fds[1]), "control")
	c, err := net.FileConn(local)
	_ = local.Close()
	if err != nil {
		_ = peer.Close()
		closeFiles()
		w.finishLimits()
		return nil, err
	}
	w.conn = c.(*net.UnixConn)
	spec.Control = 3 + len(files)
	spec.Mounts = mountPoints(args)
	w.mounts = spec.Mounts
	full := append(slices.Clone(args), s.helperArgv(spec, nil)...)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Env, cmd.Dir = []string{}, "/"
	cmd.ExtraFiles = append(files, peer)
	// A group of its own, to kill it by.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = s.startIn(spec.NetNS, cmd)
	_ = peer.Close()
	closeFiles()
	if err != nil {
		_ = w.conn.Close()
		w.finishLimits()
		return nil, err
	}
	w.cmd = cmd
	return w, nil
}

// check tells whether the sandbox is still as it was made, waiting for
// its helper to say it waits if need be. It looks at the sandbox's mounts
// through /proc itself: asking the helper was a round trip to a process
// that had to be scheduled first, most of Prepare's 1.4-1.9 ms at load
// 12-31 (BenchmarkSequentialSandboxedTrue, ./internal/sandbox/). Each
// mount point must still resolve, under the helper's root, to the mount
// whose ID the helper noted (helper/mountids.go); where that cannot be
// told, the sandbox's mount table must list it. The helper checks them
// again when the command comes.
func (w *warm) check() error {
	if w.pid == 0 {
		pid, ids, err := w.ready()
		if err != nil {
			return err
		}
		w.pid, w.ids = pid, ids
	}
	proc := "/proc/" + strconv.Itoa(w.pid)
	if w.ids != nil {
		err := helper.CheckMountIDs(proc+"/root", w.mounts, w.ids)
		if !errors.Is(err, helper.ErrNoMountIDs) && !errors.Is(err, fs.ErrPermission) {
			return err
		}
	}
	return helper.CheckMounts(proc+"/mountinfo", w.mounts)
}

// ready reads the helper's first message, which says it waits, and
// returns the process id the kernel attached to it and the mount IDs the
// helper noted.
func (w *warm) ready() (int, []uint64, error) {
	_ = w.conn.SetDeadline(time.Now().Add(warmWait))
	buf := make([]byte, helper.ReadyBuffer)
	oob := make([]byte, syscall.CmsgSpace(sizeofCred))
	n, oobn, flags, _, err := w.conn.ReadMsgUnix(buf, oob)
	switch {
	case err != nil:
		return 0, nil, err
	case n == 0:
		return 0, nil, io.EOF
	case flags&syscall.MSG_TRUNC != 0:
		return 0, nil, errors.New("the sandbox helper's message was too long")
	}
	var r helper.Reply
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		return 0, nil, fmt.Errorf("bad message from the sandbox helper: %w", err)
	}
	if r.Error != "" {
		return 0, nil, errors.New(r.Error)
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return 0, nil, errors.New("the sandbox helper's message came without its process id")
	}
	pid, err := credPid(&msgs[0])
	if err != nil || pid <= 0 {
		return 0, nil, errors.New("the sandbox helper's message came without its process id")
	}
	if len(r.MountIDs) != len(w.mounts) {
		r.MountIDs = nil // the mount table is read instead
	}
	return pid, r.MountIDs, nil
}

// stop kills the sandbox (bubblewrap's group; its PID namespace ends with
// it) and waits for it. Only for a sandbox no run was handed to: the run's
// runner waits for that one.
func (w *warm) stop() {
	w.once.Do(func() {
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		_ = w.cmd.Wait()
		_ = w.conn.Close()
	})
}

// holdMounts holds the sandbox's mount namespace from here until the run
// has ended (releaseMounts). When the last process in a mount namespace
// exits, its exit takes the namespace's mounts down and waits for an RCU
// grace period (a synchronize_rcu_expedited in the kernel's
// namespace_unlock) before the process counts as ended; that process is
// bubblewrap's init in the sandbox, so the wait lay between the command's
// end and bubblewrap's, on the run's path. Held here, the namespace goes
// when toolgate lets it go, after the run. Where it cannot be opened the
// exit takes it down as before. Speed only: BenchmarkSequentialSandboxedTrue
// (./internal/sandbox/) defends it.
func (w *warm) holdMounts() {
	w.mntNS, _ = os.Open("/proc/" + strconv.Itoa(w.pid) + "/ns/mnt")
}

// releaseMounts lets the sandbox's mount namespace go, in the background:
// the close takes its mounts down and waits for the grace period.
func (w *warm) releaseMounts() {
	if f := w.mntNS; f != nil {
		w.mntNS = nil
		go f.Close()
	}
}

// discard stops a sandbox no run took and removes its limit cgroups.
func (w *warm) discard() {
	w.stop()
	w.finishLimits()
}

func (w *warm) finishLimits() {
	if w.limits != nil {
		w.limits.finish()
	}
}

// mountPoints are the paths bubblewrap's command line mounts something on.
func mountPoints(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--ro-bind", "--bind":
			if i+2 < len(args) {
				out = append(out, args[i+2])
			}
			i += 2
		case "--tmpfs", "--dev", "--proc":
			if i+1 < len(args) {
				out = append(out, args[i+1])
			}
			i++
		case "--perms", "--chdir", "--remount-ro", "--cap-drop":
			i++
		case "--":
			return out
		}
	}
	return out
}
