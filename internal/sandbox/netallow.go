package sandbox

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/netguard"
	"github.com/toolgate/toolgate/internal/sandbox/helper"
)

// sandbox.network_allow: commands keep no network of their own (bubblewrap's
// empty network namespace) and reach the listed hosts only through an
// HTTP proxy of toolgate's. The proxy listens on a unix socket bound into
// the sandbox; inside, the helper listens on 127.0.0.1:proxyPort and
// relays each connection to that socket, and the proxy variables point
// every HTTP client at it. A client that ignores them has no route out.

// proxyPort is the relay's port inside the sandbox's network namespace.
const proxyPort = helper.ProxyPort

// allowProxy is the proxy of one Sandbox, started with its first run.
type allowProxy struct {
	once  sync.Once
	dir   socketDir // holds the socket, locked while this toolgate lives; bound into the sandbox read-only
	err   error
	proxy *netguard.Proxy
}

// close stops the proxy and removes its directory.
func (a *allowProxy) close() {
	a.once.Do(func() { a.err = errClosed })
	if a.proxy != nil {
		_ = a.proxy.Close()
	}
	if a.dir.path != "" {
		a.dir.remove()
	}
}

// socketPath is the proxy's unix socket.
func (a *allowProxy) socketPath() string { return a.dir.file(proxySocket) }

var errClosed = errors.New("the sandbox is closed")

// start listens on the proxy's unix socket and serves the allowed hosts.
func (a *allowProxy) start(allow []string) error {
	a.once.Do(func() {
		a.dir, a.err = makeSocketDir(allowDirPrefix)
		if a.err != nil {
			return
		}
		ln, err := net.Listen("unix", a.socketPath())
		if err != nil {
			a.err = err
			return
		}
		g := netguard.Guard{AllowPrivate: allowsPrivate(allow), Rules: func(u *url.URL) error {
			if !hostAllowed(u.Hostname(), allow) {
				return fmt.Errorf("the sandbox reaches only the hosts in sandbox.network_allow (%s), not %s",
					strings.Join(allow, ", "), u.Hostname())
			}
			return nil
		}}
		a.proxy = netguard.ServeProxy(ln, g, nil)
	})
	return a.err
}

// hostAllowed matches a host against the list: an exact name or address,
// or "*.example.com" for the names below example.com.
func hostAllowed(host string, allow []string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range allow {
		a = strings.ToLower(a)
		if suffix, ok := strings.CutPrefix(a, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == a {
			return true
		}
	}
	return false
}

// allowsPrivate reports whether the list names localhost or a private
// address: only then may the proxy reach private addresses (otherwise a
// listed name that resolves to 127.0.0.1 would reach toolgate itself).
func allowsPrivate(allow []string) bool {
	for _, a := range allow {
		if strings.EqualFold(a, "localhost") {
			return true
		}
		if ip := net.ParseIP(a); ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()) {
			return true
		}
	}
	return false
}

// proxyEnv points HTTP clients at the relay.
func proxyEnv(env []string) []string {
	u := "http://127.0.0.1:" + strconv.Itoa(proxyPort)
	out := make([]string, 0, len(env)+8)
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		switch strings.ToUpper(name) {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY":
			continue
		}
		out = append(out, e)
	}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		out = append(out, k+"="+u)
	}
	return out
}
