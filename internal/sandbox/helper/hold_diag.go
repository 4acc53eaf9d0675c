//go:build linux

package helper

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// SockDiagRequest is the request line on the holder's dial socket that
// asks for a netlink socket of the namespace (NETLINK_SOCK_DIAG) instead
// of a connection to a port. A netlink socket belongs to the network
// namespace it was made in, whoever uses it later: with it toolgate lists
// the namespace's listening sockets itself (sandbox.Network.Ports), though
// it may not enter the namespace, and without a round trip to the holder
// per listing.
const SockDiagRequest = "sockdiag"

// sendSockDiag answers a SockDiagRequest: "ok\n" with a fresh netlink
// socket attached (SCM_RIGHTS), or "error: ...\n" where the kernel
// refuses one. The holder keeps no copy.
func sendSockDiag(c net.Conn) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		fmt.Fprintf(c, "error: not a unix socket\n")
		return
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		fmt.Fprintf(c, "error: netlink socket: %v\n", err)
		return
	}
	defer unix.Close(fd)
	_, _, _ = uc.WriteMsgUnix([]byte("ok\n"), unix.UnixRights(fd), nil)
}
