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
// address); the proxy relay's own port is left out. It asks the kernel
// through a netlink socket of the namespace (network_diag.go), and reads
// the namespace's socket tables through the holder's /proc entry where
// netlink is refused: either way no process is started.
func (n *Network) Ports() ([]Port, error) {
	if ports, err := n.netlinkPorts(); err == nil {
		return ports, nil
	}
	return n.procPorts()
}

// procPorts lists the ports as Ports does from /proc/<holder>/net/tcp and
// tcp6, which the kernel makes by walking its whole TCP hash tables.
func (n *Network) procPorts() ([]Port, error) {
	var tables [2][]Port
	for i, table := range []string{"tcp", "tcp6"} {
		ports, err := listening("/proc/" + strconv.Itoa(n.HolderPID()) + "/net/" + table)
		if err != nil {
			if os.IsNotExist(err) && table == "tcp6" {
				continue // no IPv6 in this kernel
			}
			return nil, err
		}
		tables[i] = ports
	}
	return mergePorts(tables[0], tables[1]), nil
}

// mergePorts is Ports' list from the IPv4 and the IPv6 listening sockets:
// each port once, at its first address, the proxy's left out, sorted.
func mergePorts(v4, v6 []Port) []Port {
	var out []Port
	seen := map[int]bool{helper.ProxyPort: true}
	for _, p := range slices.Concat(v4, v6) {
		if !seen[p.Port] {
			seen[p.Port] = true
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Port) int { return a.Port - b.Port })
	return out
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
// address that reaches it, through the holder (helper/hold.go
// serveDials): toolgate may lack the privilege to enter the namespace.
func (n *Network) Dial(ctx context.Context, port int) (net.Conn, error) {
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("port %d is out of range", port)
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "unix", n.proxy.dialPath())
	if err != nil {
		return nil, fmt.Errorf("the session network's holder: %w", err)
	}
	if d, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(d)
	}
	if _, err := fmt.Fprintf(c, "%d\n", port); err != nil {
		c.Close()
		return nil, err
	}
	// The answer is read a byte at a time: what follows it is the port's.
	var line []byte
	b := make([]byte, 1)
	for len(line) < 512 {
		if _, err := c.Read(b); err != nil {
			c.Close()
			return nil, fmt.Errorf("the session network's holder: %w", err)
		}
		if b[0] == '\n' {
			break
		}
		line = append(line, b[0])
	}
	if string(line) != "ok" {
		c.Close()
		return nil, fmt.Errorf("port %d: %s", port, strings.TrimPrefix(string(line), "error: "))
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}
