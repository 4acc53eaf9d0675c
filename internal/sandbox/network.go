package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/netguard"
	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

// A session's network: in bubblewrap mode with the network off, every
// command and background job of a session runs in one network namespace
// of the session's own, instead of a fresh empty one per command. A dev
// server a job starts on 127.0.0.1:8000 is then reachable from the
// session's later commands, and from nothing else: another session has
// another namespace, and the host's loopback is not this one.
//
// The namespace is held by a small process (the helper in its hold mode,
// helper/hold.go) that toolgate starts with CLONE_NEWNET; it brings the
// loopback interface up, runs the relay to the session's proxy, and
// connects toolgate to the namespace's ports on request (Dial). Commands
// join the namespace one of two ways, as toolgate's privileges allow:
//
//   - With CAP_SYS_ADMIN (toolgate running as root): the command is forked
//     from an OS thread of toolgate's that has entered the namespace
//     (setns on a thread locked with runtime.LockOSThread) and that goes
//     back to toolgate's own namespace right after the fork. Two system
//     calls per command, no process more.
//   - Without it: the holder is started in a user namespace of its own as
//     well (CLONE_NEWUSER, toolgate's uid mapped to itself), and bubblewrap
//     is started through nsenter, which enters the holder's user and network
//     namespaces and execs it: one exec more per command. A thread of a Go
//     process cannot do that itself: joining a user namespace needs a
//     single-threaded caller.
//
// Either way bubblewrap's command line is as before without
// --unshare-net (bubblewrap has no option to join a namespace), and the
// helper inside checks that it runs in the session's namespace
// (Spec.NetNS), refusing to run the command otherwise.
//
// The namespace's listening sockets are listed through a netlink socket
// the holder makes inside it, or in /proc/<holder>/net/tcp (Ports).

// ErrNoSessionNetwork is the error of NewNetwork where the sandbox in
// force gives no session a network of its own.
var ErrNoSessionNetwork = errors.New("no session network")

// NetworkOptions say what a session's network may reach outside.
type NetworkOptions struct {
	// Decide is asked about a request through the session's proxy to a
	// host that sandbox.network_allow does not list: nil lets it through,
	// an error refuses it (its text is the refusal the command sees).
	// Nil Decide refuses every unlisted host.
	Decide func(host string, port int) error
}

// Network is one session's network namespace.
type Network struct {
	s      *Sandbox
	id     string // "net:[inode]"
	ns     *os.File
	holder *exec.Cmd
	stdin  io.WriteCloser
	proxy  *sessionProxy
	// nsenter is nsenter's path when commands join through it (toolgate
	// without CAP_SYS_ADMIN), "" when they are forked from a thread
	// inside.
	nsenter string
	// diag is the netlink socket Ports lists the namespace's sockets with.
	diag sockDiag

	closeOnce sync.Once
}

// holderReady bounds how long a new network's holder may take to start.
const holderReady = 10 * time.Second

// NewNetwork makes a session's network. It fails with ErrNoSessionNetwork
// where the sandbox in force has none to give: Landlock-only mode and the
// sandbox off share toolgate's own network, the network "on" gives
// commands the host's, and without CAP_SYS_ADMIN no namespace can be
// entered.
func (s *Sandbox) NewNetwork(o NetworkOptions) (*Network, error) {
	if s.mode != InForceBwrap || s.cfg.NetworkOn() {
		return nil, fmt.Errorf("%w: session networks need bubblewrap mode with sandbox.network off (mode in force: %s)", ErrNoSessionNetwork, s.mode)
	}
	if err := s.openOwnNetNS(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoSessionNetwork, err)
	}
	n := &Network{s: s}
	var err error
	if n.proxy, err = s.startSessionProxy(o); err != nil {
		return nil, fmt.Errorf("session proxy: %w", err)
	}
	if err := n.startHolder(); err != nil {
		n.proxy.close()
		return nil, fmt.Errorf("%w: %v", ErrNoSessionNetwork, err)
	}
	s.nets.Store(n.id, n)
	return n, nil
}

// openOwnNetNS opens toolgate's own network namespace once: threads that
// entered a session's go back to it.
func (s *Sandbox) openOwnNetNS() error {
	s.ownNet.once.Do(func() {
		s.ownNet.f, s.ownNet.err = os.Open("/proc/self/ns/net")
	})
	return s.ownNet.err
}

// startHolder starts the holder in a new network namespace, in a user
// namespace of its own too where toolgate may not make a network namespace
// alone, and waits for it to be ready.
func (n *Network) startHolder() error {
	err := n.tryHolder(false)
	if errors.Is(err, syscall.EPERM) {
		if n.nsenter, err = exec.LookPath("nsenter"); err != nil {
			return errors.New("toolgate may not make a network namespace (no CAP_SYS_ADMIN) and nsenter is not installed")
		}
		err = n.tryHolder(true)
	}
	if err != nil {
		return err
	}
	if n.nsenter == "" {
		err = n.enter(func() error { return nil }) // setns works here
	}
	if err != nil {
		n.stopHolder()
		return fmt.Errorf("the network's holder: %w", err)
	}
	return nil
}

// tryHolder starts the holder, in a user namespace of its own with userns.
func (n *Network) tryHolder(userns bool) error {
	cmd := exec.Command(n.s.helper, helper.HoldMarker, n.proxy.socketPath(), n.proxy.dialPath())
	cmd.Env, cmd.Dir = []string{}, "/"
	cmd.SysProcAttr = holderAttr(userns)
	var stderr strings.Builder // why it failed, if it does
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		_ = stdin.Close()
		return fmt.Errorf("start the network's holder: %w", err)
	}
	n.holder, n.stdin = cmd, stdin
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err == nil && line != "ready\n" {
			err = fmt.Errorf("unexpected %q", line)
		}
		ready <- err
	}()
	select {
	case err = <-ready:
	case <-time.After(holderReady):
		err = errors.New("timed out")
	}
	if err == nil {
		n.ns, err = os.Open("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/ns/net")
	}
	if err == nil {
		n.id, err = os.Readlink(n.ns.Name())
	}
	if err != nil {
		n.stopHolder()
		return fmt.Errorf("the network's holder: %w %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// ID names the network's namespace, "net:[inode]".
func (n *Network) ID() string { return n.id }

// HolderPID is the process that holds the namespace.
func (n *Network) HolderPID() int { return n.holder.Process.Pid }

// enter runs f on an OS thread that is in the network's namespace for
// the time of f. The thread goes back to toolgate's namespace afterwards;
// where it cannot, it is left to end with its goroutine rather than serve
// another goroutine in the wrong namespace.
func (n *Network) enter(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := setNetNS(n.ns); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("enter the session network: %w", err)
			return
		}
		errc <- f()
		if err := setNetNS(n.s.ownNet.f); err != nil {
			return // locked: the runtime ends the thread with the goroutine
		}
		runtime.UnlockOSThread()
	}()
	return <-errc
}

// start starts cmd inside the network: forked from a thread inside (a
// process keeps the namespace of the thread that forked it), or, joining
// through nsenter, as it is (its command line was wrapped).
//
// bubblewrap's --die-with-parent ties the command's life to the thread
// that forked it; that thread goes back to toolgate and lives on.
func (n *Network) start(cmd *exec.Cmd) error {
	if n.nsenter != "" {
		return cmd.Start()
	}
	return n.enter(cmd.Start)
}

// wrap is bubblewrap's command line args made to join the network:
// behind nsenter where commands join through it, else as it is. nsenter
// execs bubblewrap (no fork: it enters no PID namespace) and takes its
// own options only up to the program.
func (n *Network) wrap(args []string) []string {
	if n == nil || n.nsenter == "" {
		return args
	}
	return append([]string{n.nsenter, "--preserve-credentials", "--user", "--net", "--target", strconv.Itoa(n.HolderPID())}, args...)
}

// Close ends the network: the holder exits, the proxy stops, sandboxes
// started ahead of time in it are discarded. The namespace is gone once
// the last process in it has ended: call Close after the session's
// commands and jobs.
func (n *Network) Close() {
	n.closeOnce.Do(func() {
		n.s.nets.Delete(n.id)
		n.s.warm.dropNetwork(n.id)
		n.s.kept.drop(`"netns":"` + n.id + `"`)
		n.stopHolder()
		n.diag.close() // it holds the namespace too
		if n.ns != nil {
			_ = n.ns.Close()
		}
		n.proxy.close()
	})
}

// stopHolder closes the holder's input, which ends it, and waits for it;
// it is killed if it has not ended within a second.
func (n *Network) stopHolder() {
	_ = n.stdin.Close()
	done := make(chan struct{})
	go func() {
		_ = n.holder.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		_ = syscall.Kill(-n.holder.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// ownNetNS is toolgate's own network namespace, opened once.
type ownNetNS struct {
	once sync.Once
	f    *os.File
	err  error
}

// networkGuard is the address policy of a session proxy: private
// addresses only where the config allows them.
func (s *Sandbox) networkGuard() netguard.Guard {
	return netguard.Guard{AllowPrivate: allowsPrivate(s.cfg.NetworkAllow), AllowAddresses: s.cfg.allowAddresses(),
		Allowing: "toolgate's config lists its ip:port in sandbox.network_allow_addresses"}
}

// joinNetwork makes a bubblewrap run join its session's network, when it
// has one and the network is off: the helper checks it is there, keeps
// TCP open (the namespace is the boundary; a dev server must bind), and
// HTTP clients go through the session's proxy. It reports whether the run
// joins one.
func (s *Sandbox) joinNetwork(p *Prepared, spec *helperSpec, r Run) bool {
	if r.Net == nil || r.Network || s.cfg.NetworkOn() || r.Net.s != s {
		return false
	}
	p.net = r.Net
	spec.NetNS, spec.Network = r.Net.id, true
	p.Env = sessionProxyEnv(p.Env)
	return true
}

// startIn starts cmd in the session network named id ("" for none): a
// sandbox started ahead of time for a run in that network.
func (s *Sandbox) startIn(id string, cmd *exec.Cmd) error {
	if id == "" {
		return cmd.Start()
	}
	n, ok := s.nets.Load(id)
	if !ok {
		return fmt.Errorf("session network %s has ended", id)
	}
	return n.(*Network).start(cmd)
}

// dropNetwork discards the sandboxes started ahead of time in the
// session network id, waiting for those being started: each holds the
// namespace alive.
func (ws *warmSlot) dropNetwork(id string) {
	if ws == nil {
		return
	}
	mark := `"netns":"` + id + `"`
	ws.mu.Lock()
	var ready []*warm
	var dropped []*warmEntry
	for k, e := range ws.slots {
		if !strings.Contains(k, mark) {
			continue
		}
		delete(ws.slots, k) // a sandbox still being started is discarded once it is
		ready = append(ready, e.ready...)
		e.ready = nil
		dropped = append(dropped, e)
	}
	ws.mu.Unlock()
	for _, w := range ready {
		w.discard()
	}
	deadline := time.After(warmWait)
	for _, e := range dropped {
		for {
			ws.mu.Lock()
			filling, filled := e.filling, e.filled
			ws.mu.Unlock()
			if filling == 0 {
				break
			}
			select {
			case <-filled:
			case <-deadline:
				return
			}
		}
	}
}
