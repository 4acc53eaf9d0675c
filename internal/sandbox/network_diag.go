//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox/helper"
	"golang.org/x/sys/unix"
)

// A session's listening sockets are listed through netlink's sock_diag
// (SOCK_DIAG_BY_FAMILY, listening sockets only) rather than read from
// /proc/<holder>/net/tcp{,6}: the kernel makes those files by walking the
// whole established-connection hash table of the host, every namespace's
// sockets, for each read (about 4 ms of system time per file on a host
// with 24 GiB), where a dump asking for listening sockets alone walks the
// listening table only. BenchmarkPortsNetlink (./internal/sandbox/)
// defends it. The socket comes from the holder (helper.SockDiagRequest),
// made inside the namespace; /proc stays the way where the holder or the
// kernel refuses it.

// errNoSockDiag is netlinkPorts' error where the network has no netlink
// socket to list its ports with.
var errNoSockDiag = errors.New("no sock_diag socket")

// sockDiag is a session network's netlink socket, asked of the holder at
// the first listing. One dump runs on it at a time.
type sockDiag struct {
	mu    sync.Mutex
	fd    int // -1: none (refused, failed once, or closed)
	asked bool
	seq   uint32
}

// diagTimeout bounds the holder's answer and each read of a dump: the
// kernel answers at once, so only a wedged peer would reach it.
const diagTimeout = 5 * time.Second

// netlinkPorts lists the network's listening ports through sock_diag,
// IPv4 first, as procPorts reads them. Any failure drops the socket (a
// dump left half read would garble the next one) and later listings read
// /proc.
func (n *Network) netlinkPorts() ([]Port, error) {
	d := &n.diag
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.asked {
		d.asked = true
		var err error
		if d.fd, err = askSockDiag(n.proxy.dialPath()); err != nil {
			d.fd = -1
			return nil, err
		}
	}
	if d.fd < 0 {
		return nil, errNoSockDiag
	}
	var tables [2][]Port
	for i, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		ports, err := d.dump(family)
		if family == unix.AF_INET6 && errors.Is(err, syscall.ENOENT) {
			continue // no IPv6 in this kernel; the refusal ended the dump
		}
		if err != nil {
			d.closeLocked()
			return nil, fmt.Errorf("sock_diag: %w", err)
		}
		tables[i] = ports
	}
	return mergePorts(tables[0], tables[1]), nil
}

// close closes the socket; listings after it fail over to /proc.
func (d *sockDiag) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.asked { // else fd is no socket of ours
		d.closeLocked()
	}
	d.asked, d.fd = true, -1
}

func (d *sockDiag) closeLocked() {
	if d.fd >= 0 {
		_ = unix.Close(d.fd)
	}
	d.fd = -1
}

// askSockDiag asks the holder listening on dialPath for a netlink socket
// of its namespace and checks that what came is one.
func askSockDiag(dialPath string) (int, error) {
	c, err := net.DialTimeout("unix", dialPath, diagTimeout)
	if err != nil {
		return -1, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(diagTimeout))
	if _, err := io.WriteString(c, helper.SockDiagRequest+"\n"); err != nil {
		return -1, err
	}
	buf, oob := make([]byte, 512), make([]byte, unix.CmsgSpace(4))
	nb, noob, _, _, err := c.(*net.UnixConn).ReadMsgUnix(buf, oob)
	if err != nil {
		return -1, err
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:noob]); err == nil {
		for _, m := range msgs {
			if got, err := unix.ParseUnixRights(&m); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	if answer := string(buf[:nb]); answer != "ok\n" || len(fds) != 1 {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
		return -1, fmt.Errorf("the holder gave no sock_diag socket: %q", strings.TrimSpace(answer))
	}
	fd := fds[0]
	domain, derr := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	proto, perr := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	if derr != nil || perr != nil || domain != unix.AF_NETLINK || proto != unix.NETLINK_SOCK_DIAG {
		_ = unix.Close(fd)
		return -1, errors.New("the holder's socket is not a sock_diag socket")
	}
	tv := unix.NsecToTimeval(diagTimeout.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// The kernel's structures (include/uapi/linux/inet_diag.h), laid out by
// hand: golang.org/x/sys/unix has no Go types for them.
const (
	tcpListenState = 10 // TCP_LISTEN, include/net/tcp_states.h
	diagReqLen     = 56 // struct inet_diag_req_v2
	diagMsgLen     = 72 // struct inet_diag_msg
	// diagBufLen holds any message batch of a dump: the kernel fills at
	// most the larger of a page (8 KiB at most) and the reader's buffer.
	diagBufLen = 16 << 10
)

// dump lists one address family's TCP sockets in the LISTEN state.
func (d *sockDiag) dump(family uint8) ([]Port, error) {
	d.seq++
	req := make([]byte, unix.NLMSG_HDRLEN+diagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], d.seq)
	r := req[unix.NLMSG_HDRLEN:]
	r[0], r[1] = family, unix.IPPROTO_TCP
	ne.PutUint32(r[4:], 1<<tcpListenState)
	if err := unix.Sendto(d.fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, err
	}
	buf := make([]byte, diagBufLen)
	var out []Port
	for {
		nb, _, flags, _, err := unix.Recvmsg(d.fd, buf, nil, 0)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if flags&unix.MSG_TRUNC != 0 {
			return nil, errors.New("message truncated")
		}
		var done bool
		if out, done, err = parseDiag(buf[:nb], d.seq, out); err != nil || done {
			return out, err
		}
	}
}

// parseDiag appends the listening sockets of one batch of a dump's
// messages to out, and says whether the dump is done.
func parseDiag(b []byte, seq uint32, out []Port) ([]Port, bool, error) {
	ne := binary.NativeEndian
	for len(b) >= unix.NLMSG_HDRLEN {
		size := int(ne.Uint32(b[0:]))
		typ, mseq := ne.Uint16(b[4:]), ne.Uint32(b[8:])
		if size < unix.NLMSG_HDRLEN || size > len(b) {
			return nil, false, errors.New("malformed netlink message")
		}
		if mseq != seq {
			return nil, false, fmt.Errorf("netlink message of sequence %d, want %d", mseq, seq)
		}
		body := b[unix.NLMSG_HDRLEN:size]
		switch typ {
		case unix.NLMSG_DONE, unix.NLMSG_ERROR:
			if len(body) >= 4 {
				if e := int32(ne.Uint32(body)); e < 0 {
					return nil, false, syscall.Errno(-e)
				}
			}
			return out, true, nil
		case unix.SOCK_DIAG_BY_FAMILY:
			if p, ok := diagPort(body); ok {
				out = append(out, p)
			}
		}
		b = b[min(len(b), (size+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)):]
	}
	return out, false, nil
}

// diagPort reads a struct inet_diag_msg: family and state, then the
// socket's id, whose source port and address (network byte order) are
// where it listens.
func diagPort(m []byte) (Port, bool) {
	if len(m) < diagMsgLen || m[1] != tcpListenState {
		return Port{}, false
	}
	port := int(binary.BigEndian.Uint16(m[4:]))
	var addr netip.Addr
	switch m[0] {
	case unix.AF_INET:
		addr = netip.AddrFrom4([4]byte(m[8:12]))
	case unix.AF_INET6:
		addr = netip.AddrFrom16([16]byte(m[8:24])).Unmap()
	default:
		return Port{}, false
	}
	return Port{Port: port, Address: addr.String()}, true
}
