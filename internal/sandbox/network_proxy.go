package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/netguard"
)

// A session network has no route out. Its commands reach outside hosts
// only through an HTTP proxy of toolgate's for the session alone, which
// the network's holder relays to from 127.0.0.1:3128 inside (the proxy
// variables point every HTTP client there, NO_PROXY keeping the session's
// own loopback direct). The proxy lets the hosts of sandbox.network_allow
// through; any other host is put to the session's decision
// (NetworkOptions.Decide), which asks the user like any other approval.
// Private, loopback and link-local addresses stay refused unless the
// config allows them, whatever the decision.

// sessionProxy is one session network's proxy.
type sessionProxy struct {
	dir   socketDir // holds the sockets, locked while this toolgate lives
	proxy *netguard.Proxy
}

// startSessionProxy listens on a fresh unix socket and serves the
// session's proxy on it.
func (s *Sandbox) startSessionProxy(o NetworkOptions) (*sessionProxy, error) {
	dir, err := makeSocketDir(netDirPrefix)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", dir.file(proxySocket))
	if err != nil {
		dir.remove()
		return nil, err
	}
	g := s.networkGuard()
	allow := s.cfg.NetworkAllow
	g.Rules = func(u *url.URL) error {
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		if hostAllowed(host, allow) {
			return nil
		}
		port := portOf(u)
		// An address the guard refuses is refused before anyone is
		// asked: no approval reaches toolgate's own loopback.
		if ip, err := netip.ParseAddr(host); err == nil {
			if err := g.CheckAddr(netip.AddrPortFrom(ip, uint16(port))); err != nil {
				return err
			}
		}
		if o.Decide == nil {
			return fmt.Errorf("the sandbox reaches only the hosts in sandbox.network_allow, not %s; "+
				"add it there to allow it", host)
		}
		return o.Decide(host, port)
	}
	return &sessionProxy{dir: dir, proxy: netguard.ServeProxy(ln, g, nil)}, nil
}

// socketPath is the proxy's unix socket.
func (p *sessionProxy) socketPath() string { return p.dir.file(proxySocket) }

// dialPath is the holder's unix socket for connections into the network
// (helper/hold.go serveDials); its directory is toolgate's, 0700.
func (p *sessionProxy) dialPath() string { return p.dir.file("dial.sock") }

// close stops the proxy and removes its directory, then lets go of the
// directory's lock.
func (p *sessionProxy) close() {
	_ = p.proxy.Close()
	p.dir.remove()
}

// portOf is a URL's port, its scheme's default when it names none.
func portOf(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// sessionProxyEnv points HTTP clients at the relay, with the session's
// own loopback reached directly.
func sessionProxyEnv(env []string) []string {
	out := proxyEnv(env)
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		out = append(out, k+"=localhost,127.0.0.1,::1")
	}
	return out
}

// allowAddresses are sandbox.network_allow_addresses parsed (checked by
// Config.Check).
func (c Config) allowAddresses() []netip.AddrPort {
	var out []netip.AddrPort
	for _, a := range c.NetworkAllowAddresses {
		if ap, err := netip.ParseAddrPort(a); err == nil {
			out = append(out, ap)
		}
	}
	return out
}
