package sandbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/benchpair"
	"golang.org/x/sys/unix"
)

// listenerScript listens in every way a dev server may: IPv4 and IPv6
// loopback, IPv6 any with IPv4 mapped, one port on both IPv4 any and
// IPv6-only any, an IPv4-mapped address; and it holds an established
// connection, which is no listening port. It prints "ready" and waits for
// its standard input to end.
const listenerScript = `
import socket, sys
held = []
def listen(family, addr, port, v6only=None):
    s = socket.socket(family, socket.SOCK_STREAM)
    if v6only is not None:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, v6only)
    s.bind((addr, port))
    s.listen()
    held.append(s)
listen(socket.AF_INET, "127.0.0.1", 18081)
listen(socket.AF_INET6, "::1", 18082)
listen(socket.AF_INET6, "::", 18083, 0)
listen(socket.AF_INET, "0.0.0.0", 18084)
listen(socket.AF_INET6, "::", 18084, 1)
listen(socket.AF_INET6, "::ffff:127.0.0.1", 18085, 0)
held.append(socket.create_connection(("127.0.0.1", 18081)))
print("ready", flush=True)
sys.stdin.read()
`

// listenersWant is what Ports lists while listenerScript runs.
var listenersWant = []Port{{18081, "127.0.0.1"}, {18082, "::1"}, {18083, "::"}, {18084, "0.0.0.0"}, {18085, "127.0.0.1"}}

// startListeners runs listenerScript in n until the test ends.
func startListeners(tb testing.TB, s *Sandbox, n *Network) {
	tb.Helper()
	p, err := s.Prepare([]string{"python3", "-c", listenerScript}, os.Environ(), Run{Workspace: tb.TempDir(), Net: n})
	if err != nil {
		tb.Fatalf("Prepare: %v", err)
	}
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Env, cmd.ExtraFiles = p.Env, p.ExtraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := p.Start(cmd); err != nil {
		tb.Fatalf("start: %v", err)
	}
	tb.Cleanup(func() {
		_ = stdin.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		p.Finish()
	})
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		if line != "ready\n" {
			tb.Fatalf("the listeners did not start: %q", line)
		}
	case <-time.After(time.Minute):
		tb.Fatal("the listeners did not start within a minute")
	}
}

// newPortsNetwork is a session network with listenerScript running in it;
// it skips where this machine gives no session networks.
func newPortsNetwork(tb testing.TB) *Network {
	tb.Helper()
	s := New(Config{Mode: ModeBwrap})
	tb.Cleanup(s.Close)
	if s.Mode() != InForceBwrap {
		tb.Skipf("no bubblewrap: %s", s.Info().Reason)
	}
	n, err := s.NewNetwork(NetworkOptions{})
	if err != nil {
		tb.Skipf("no session network here: %v", err)
	}
	tb.Cleanup(n.Close)
	startListeners(tb, s, n)
	return n
}

// TestPortsNetlink: the listening sockets of a session's namespace, listed
// through the holder's netlink socket, are those its /proc tables list,
// each way of listening included; with the socket gone the listing reads
// /proc and lists the same.
func TestPortsNetlink(t *testing.T) {
	n := newPortsNetwork(t)
	byNetlink, err := n.netlinkPorts()
	if err != nil {
		t.Fatalf("netlinkPorts: %v", err)
	}
	byProc, err := n.procPorts()
	if err != nil {
		t.Fatalf("procPorts: %v", err)
	}
	if !slices.Equal(byProc, listenersWant) {
		t.Fatalf("/proc lists %v, want %v", byProc, listenersWant)
	}
	if !slices.Equal(byNetlink, byProc) {
		t.Errorf("netlink lists %v, /proc %v", byNetlink, byProc)
	}
	if got, err := n.Ports(); err != nil || !slices.Equal(got, byProc) || n.diag.fd < 0 {
		t.Errorf("Ports: %v %v (netlink socket %d), want %v through netlink", got, err, n.diag.fd, byProc)
	}
	// Commands are forked from toolgate: the socket must not reach them.
	if flags, err := unix.FcntlInt(uintptr(n.diag.fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("the netlink socket's descriptor flags %#x %v: not close-on-exec", flags, err)
	}
	n.diag.close()
	if got, err := n.Ports(); err != nil || !slices.Equal(got, byProc) {
		t.Errorf("Ports without netlink: %v %v, want %v", got, err, byProc)
	}
}

// TestParseDiag: a dump's end, the kernel's refusal, a message of another
// request and a cut message are told apart.
func TestParseDiag(t *testing.T) {
	msg := func(typ uint16, seq uint32, body []byte) []byte {
		b := make([]byte, unix.NLMSG_HDRLEN, unix.NLMSG_HDRLEN+len(body))
		binary.NativeEndian.PutUint32(b[0:], uint32(unix.NLMSG_HDRLEN+len(body)))
		binary.NativeEndian.PutUint16(b[4:], typ)
		binary.NativeEndian.PutUint32(b[8:], seq)
		return append(b, body...)
	}
	listener := make([]byte, diagMsgLen)
	listener[0], listener[1] = unix.AF_INET, tcpListenState
	binary.BigEndian.PutUint16(listener[4:], 8000)
	copy(listener[8:], []byte{127, 0, 0, 1})
	established := slices.Clone(listener)
	established[1] = 1
	errno := make([]byte, 4)
	neg := -int32(unix.ENOENT) // the kernel sends the errno negated
	binary.NativeEndian.PutUint32(errno, uint32(neg))
	for _, c := range []struct {
		name  string
		batch []byte
		ports []Port
		done  bool
		err   string
	}{
		{"listener then done", slices.Concat(msg(unix.SOCK_DIAG_BY_FAMILY, 7, listener), msg(unix.SOCK_DIAG_BY_FAMILY, 7, established),
			msg(unix.NLMSG_DONE, 7, make([]byte, 4))), []Port{{8000, "127.0.0.1"}}, true, ""},
		{"more to come", msg(unix.SOCK_DIAG_BY_FAMILY, 7, listener), []Port{{8000, "127.0.0.1"}}, false, ""},
		{"refused", msg(unix.NLMSG_ERROR, 7, errno), nil, false, syscall.ENOENT.Error()},
		{"another request", msg(unix.NLMSG_DONE, 6, make([]byte, 4)), nil, false, "sequence 6"},
		{"cut", msg(unix.SOCK_DIAG_BY_FAMILY, 7, listener)[:40], nil, false, "malformed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ports, done, err := parseDiag(c.batch, 7, nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want one saying %q", err, c.err)
				}
				if c.name == "refused" && !errors.Is(err, syscall.ENOENT) {
					t.Errorf("err %v is not ENOENT", err)
				}
				return
			}
			if err != nil || done != c.done || fmt.Sprint(ports) != fmt.Sprint(c.ports) {
				t.Errorf("got %v done %v err %v, want %v done %v", ports, done, err, c.ports, c.done)
			}
		})
	}
}

// BenchmarkPortsNetlink measures what listing a session's ports through
// sock_diag buys over reading /proc/<holder>/net/tcp and tcp6, in a
// namespace with listeners (listenerScript), the two taking turns
// (internal/benchpair). The /proc files cost what the host's whole TCP
// hash table costs to walk, whatever the namespace holds.
//
//	go test -run '^$' -bench PortsNetlink -benchtime 2000x ./internal/sandbox
func BenchmarkPortsNetlink(b *testing.B) {
	n := newPortsNetwork(b)
	list := func(f func() ([]Port, error)) func() {
		return func() {
			if ports, err := f(); err != nil || len(ports) != len(listenersWant) {
				b.Fatalf("%v %v, want %v", ports, err, listenersWant)
			}
		}
	}
	benchpair.Run(b, list(n.netlinkPorts), list(n.procPorts))
}
