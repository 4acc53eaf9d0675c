//go:build linux

package helper

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// HoldMarker is argv[1] of a binary started as a session network's
// holder: the process that keeps a network namespace of its own alive for
// as long as a session needs it (sandbox.Network). toolgate starts it in a
// fresh network namespace (clone with CLONE_NEWNET, and CLONE_NEWUSER when
// toolgate is not privileged); the holder brings the loopback interface
// up, starts the proxy relay when argv[2] names a proxy socket, serves
// toolgate's connections into the namespace on the unix socket argv[3]
// (DialPort), and then waits for its standard input to close: toolgate
// closes it to end the network, and its death closes it as well.
const HoldMarker = "__toolgate-sandbox-hold"

// runHold is the holder's life. It returns only on a failure before it is
// ready; otherwise it exits when its standard input ends.
func runHold(socket, dialSocket string) error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bring the loopback interface up: %w", err)
	}
	if socket != "" {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(ProxyPort))
		if err != nil {
			return fmt.Errorf("proxy relay: %w", err)
		}
		go relay(ln, socket)
	}
	dl, err := net.Listen("unix", dialSocket)
	if err != nil {
		return fmt.Errorf("dial socket: %w", err)
	}
	go serveDials(dl)
	// Ready: toolgate reads this line before the network is used.
	if _, err := os.Stdout.WriteString("ready\n"); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
	return nil
}

// loopbackUp sets the lo interface up: a new network namespace has it
// down, and a dev server on 127.0.0.1 needs it.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// checkNetNS verifies that the helper runs in the network namespace want
// names ("net:[inode]"), when one is named.
func checkNetNS(want string) error {
	if want == "" {
		return nil
	}
	got, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return fmt.Errorf("session network: %w", err)
	}
	if got != want {
		return fmt.Errorf("the command is not in its session's network (%s, not %s)", got, want)
	}
	return nil
}

// serveDials answers each connection on ln: toolgate writes a port number
// and a newline; the holder connects to that port on the namespace's
// loopback and answers "ok\n" before relaying both ways, or the error.
// This is how toolgate reaches a session's ports when it cannot enter the
// namespace itself (no CAP_SYS_ADMIN), and one path for both cases.
// A request of SockDiagRequest instead is answered with a netlink socket
// of the namespace (sendSockDiag).
func serveDials(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			req, err := readRequest(c)
			if err == nil && req == SockDiagRequest {
				sendSockDiag(c)
				return
			}
			port, err := parsePort(req, err)
			if err != nil {
				fmt.Fprintf(c, "error: %v\n", err)
				return
			}
			relayPort(c, port)
		}()
	}
}

// relayPort connects to port on the namespace's loopback, IPv4 first,
// answers "ok\n" and relays both ways until both sides have ended.
func relayPort(c net.Conn, port int) {
	up, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 10*time.Second)
	if err != nil {
		up, err = net.DialTimeout("tcp", net.JoinHostPort("::1", strconv.Itoa(port)), 10*time.Second)
	}
	if err != nil {
		fmt.Fprintf(c, "error: %v\n", err)
		return
	}
	defer up.Close()
	if _, err := io.WriteString(c, "ok\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

// maxRequest bounds a request line: a port number or SockDiagRequest.
const maxRequest = 16

// readRequest reads a request line a byte at a time: nothing after the
// newline may be consumed, it belongs to the relayed stream.
func readRequest(c net.Conn) (string, error) {
	var b [1]byte
	var line []byte
	for len(line) < maxRequest {
		if _, err := c.Read(b[:]); err != nil {
			return "", err
		}
		if b[0] == '\n' {
			return string(line), nil
		}
		line = append(line, b[0])
	}
	return "", fmt.Errorf("bad port request")
}

// parsePort is the port a request line names; err is readRequest's.
func parsePort(req string, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	port, err := strconv.Atoi(req)
	if err != nil || port < 1 || port > 65535 {
		return 0, fmt.Errorf("bad port %q", req)
	}
	return port, nil
}

// closeWrite half-closes a connection that can, so the other side sees
// the end of the stream while its answer still comes back.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}
