package helper

import (
	"net"
	"os"
	"strings"
	"testing"
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
	for in, want := range map[string]int{"8000\n": 8000, "1\n": 1, "65535\n": 65535, "0\n": -1, "65536\n": -1, "x\n": -1, "1234567\n": -1} {
		a, b := pipe(t)
		go func() { a.Write([]byte(in + "rest")) }()
		got, err := readPort(b)
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
