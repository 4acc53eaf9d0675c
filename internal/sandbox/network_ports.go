package sandbox

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

// Port is a TCP port listening in a session's network.
type Port struct {
	// Port is the port number.
	Port int `json:"port"`
	// Address is the address it listens on: 127.0.0.1, 0.0.0.0, ::1, ::.
	Address string `json:"address"`
}

// Ports lists the TCP ports listening in the network, lowest first, each
// once (a server listening on both IPv4 and IPv6 shows its first
// address); the proxy relay's own port is left out. It reads the
// namespace's socket tables through the holder's /proc entry: a few
// kilobytes, no process started.
func (n *Network) Ports() ([]Port, error) {
	var out []Port
	seen := map[int]bool{helper.ProxyPort: true}
	for _, table := range []string{"tcp", "tcp6"} {
		ports, err := listening("/proc/" + strconv.Itoa(n.HolderPID()) + "/net/" + table)
		if err != nil {
			if os.IsNotExist(err) && table == "tcp6" {
				continue // no IPv6 in this kernel
			}
			return nil, err
		}
		for _, p := range ports {
			if !seen[p.Port] {
				seen[p.Port] = true
				out = append(out, p)
			}
		}
	}
	slices.SortFunc(out, func(a, b Port) int { return a.Port - b.Port })
	return out, nil
}

// tcpListen is the state column's value for a listening socket
// (include/net/tcp_states.h: TCP_LISTEN).
const tcpListen = "0A"

// listening reads the listening sockets of one /proc/net/tcp{,6} table.
func listening(path string) ([]Port, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Port
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[3] != tcpListen {
			continue
		}
		addr, port, ok := parseProcAddr(fields[1])
		if ok {
			out = append(out, Port{Port: port, Address: addr.String()})
		}
	}
	return out, sc.Err()
}

// parseProcAddr reads "0100007F:1F90": the address as the kernel stores
// it (32-bit words in host order, little-endian here) and the port in hex.
func parseProcAddr(s string) (netip.Addr, int, bool) {
	h, p, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(p, 16, 16)
	raw, herr := hex.DecodeString(h)
	if !ok || err != nil || herr != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.Addr{}, 0, false
	}
	for i := 0; i+4 <= len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	addr, _ := netip.AddrFromSlice(raw)
	return addr.Unmap(), int(port), true
}

// Dial connects to a port listening in the network, on the loopback
// address that reaches it: the socket is made on a thread inside the
// namespace, and stays in it.
func (n *Network) Dial(ctx context.Context, port int) (net.Conn, error) {
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("port %d is out of range", port)
	}
	host := "127.0.0.1"
	if ports, err := n.Ports(); err == nil {
		for _, p := range ports {
			if p.Port == port && strings.Contains(p.Address, ":") && p.Address != "::" {
				host = "::1" // listens on IPv6 loopback only
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var c net.Conn
	err := n.enter(func() error {
		var err error
		c, err = (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		return err
	})
	return c, err
}
