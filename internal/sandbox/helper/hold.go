package helper

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// HoldMarker is argv[1] of a binary started as a session network's
// holder: the process that keeps a network namespace of its own alive for
// as long as a session needs it (sandbox.Network). toolgate starts it in a
// fresh network namespace (clone with CLONE_NEWNET); the holder brings the
// loopback interface up, starts the proxy relay when argv[2] names a proxy
// socket, and then waits for its standard input to close: toolgate closes
// it to end the network, and its death closes it as well.
const HoldMarker = "__toolgate-sandbox-hold"

// runHold is the holder's life. It returns only on a failure before it is
// ready; otherwise it exits when its standard input ends.
func runHold(socket string) error {
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
