package helper

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCheckNetNS: the helper runs a command only in the network namespace
// its spec names, so a join that did not happen fails closed.
func TestCheckNetNS(t *testing.T) {
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Skipf("no /proc/self/ns/net: %v", err)
	}
	if err := checkNetNS(own); err != nil {
		t.Errorf("own namespace refused: %v", err)
	}
	if err := checkNetNS(""); err != nil {
		t.Errorf("no namespace named, refused: %v", err)
	}
	if err := checkNetNS("net:[1]"); err == nil || !strings.Contains(err.Error(), "not in its session's network") {
		t.Errorf("another namespace: %v, want a refusal", err)
	}
}

// TestReadPort: the holder reads a port request a byte at a time and
// refuses anything but a port number.
func TestReadPort(t *testing.T) {
	for in, want := range map[string]int{"8000\n": 8000, "1\n": 1, "65535\n": 65535, "0\n": -1, "65536\n": -1, "x\n": -1,
		"1234567\n": -1, "12345678901234567890\n": -1} {
		a, b := pipe(t)
		go func() { a.Write([]byte(in + "rest")) }()
		got, err := parsePort(readRequest(b))
		if want < 0 {
			if err == nil {
				t.Errorf("%q: got %d, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: got %d %v, want %d", in, got, err, want)
		}
		rest := make([]byte, 4)
		if n, _ := b.Read(rest); string(rest[:n]) != "rest" {
			t.Errorf("%q: what followed the request was consumed: %q", in, rest[:n])
		}
	}
}

// pipe is a connected pair of in-memory connections.
func pipe(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestSockDiagRequest: asked for SockDiagRequest, the holder answers "ok"
// with a netlink sock_diag socket attached, which toolgate lists the
// namespace's listening sockets with.
func TestSockDiagRequest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dial.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveDials(ln)
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(SockDiagRequest + "\n")); err != nil {
		t.Fatal(err)
	}
	buf, oob := make([]byte, 64), make([]byte, unix.CmsgSpace(4))
	n, noob, _, _, err := c.(*net.UnixConn).ReadMsgUnix(buf, oob)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:noob])
	if err != nil || len(msgs) != 1 {
		t.Fatalf("answer %q with %d control messages (%v), want one", buf[:n], len(msgs), err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		t.Fatalf("rights %v %v, want one descriptor", fds, err)
	}
	defer unix.Close(fds[0])
	if string(buf[:n]) != "ok\n" {
		t.Errorf("answer %q, want ok", buf[:n])
	}
	domain, _ := unix.GetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_DOMAIN)
	proto, _ := unix.GetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PROTOCOL)
	if domain != unix.AF_NETLINK || proto != unix.NETLINK_SOCK_DIAG {
		t.Errorf("socket of domain %d protocol %d, want netlink (%d) sock_diag (%d)", domain, proto, unix.AF_NETLINK, unix.NETLINK_SOCK_DIAG)
	}
}
