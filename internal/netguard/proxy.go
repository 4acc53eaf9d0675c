package netguard

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Proxy is a forward HTTP proxy that reaches only what its guard allows. A
// browser started with --proxy-server pointing at it sends every request
// through it (https and WebSockets as CONNECT tunnels), so redirects, links
// and scripts are held to the same address rules as the first URL, checked
// where the connection is made, after DNS.
type Proxy struct {
	guard    Guard
	dialer   *net.Dialer
	ln       net.Listener
	srv      *http.Server
	onRefuse func(target string, err error)
	local    LocalDialer // nil: localhost is an address like any other
	// localTransport carries plain requests for localhost to local.
	localTransport *http.Transport

	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
}

// StartProxy listens on a loopback port. onRefuse, if set, hears about
// each refused request.
func StartProxy(g Guard, onRefuse func(target string, err error)) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return ServeProxy(ln, g, onRefuse), nil
}

// LocalDialer connects to a port of "localhost" somewhere other than
// toolgate's own loopback: a session's network (sandbox.Network.Dial).
type LocalDialer func(ctx context.Context, port int) (net.Conn, error)

// StartLocalProxy is StartProxy whose requests for localhost,
// 127.0.0.1 and [::1] go to local instead: a browser of a session reaches
// the session's dev servers, and still nothing on toolgate's loopback.
func StartLocalProxy(g Guard, onRefuse func(target string, err error), local LocalDialer) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return serveProxy(ln, g, onRefuse, local), nil
}

// ServeProxy serves the proxy on a listener of the caller's (a unix
// socket that a sandbox without network reaches, say).
func ServeProxy(ln net.Listener, g Guard, onRefuse func(target string, err error)) *Proxy {
	return serveProxy(ln, g, onRefuse, nil)
}

func serveProxy(ln net.Listener, g Guard, onRefuse func(target string, err error), local LocalDialer) *Proxy {
	p := &Proxy{guard: g, ln: ln, onRefuse: onRefuse, tunnels: map[net.Conn]struct{}{}, local: local,
		dialer: &net.Dialer{Timeout: 30 * time.Second, Control: g.Control}}
	transport := &http.Transport{Proxy: nil, DialContext: p.dialer.DialContext, MaxIdleConnsPerHost: 4,
		IdleConnTimeout: 30 * time.Second, ResponseHeaderTimeout: 60 * time.Second}
	p.srv = &http.Server{Handler: p.handler(transport), ReadHeaderTimeout: 10 * time.Second}
	if local != nil {
		p.localTransport = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second,
			DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dialLocal(ctx, addr) }}
	}
	go p.srv.Serve(ln)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Close stops the proxy and every tunnel through it.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.mu.Lock()
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	return err
}

func (p *Proxy) handler(transport *http.Transport) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			p.tunnel(w, r)
			return
		}
		p.forward(w, r, transport)
	})
}

// refuse answers a refused request with a page that says why, which is
// what the browser shows and the screenshot captures.
func (p *Proxy) refuse(w http.ResponseWriter, target string, err error) {
	if p.onRefuse != nil {
		p.onRefuse(target, err)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "toolgate refused to load %s: %v\n", target, err)
}

// forward relays a plain-http request.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, transport *http.Transport) {
	if r.URL.Scheme == "" || r.URL.Host == "" {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	if p.isLocal(r.URL.Hostname(), portOf(r.URL)) {
		transport = p.localTransport
	}
	if err := p.check(r.URL); err != nil {
		p.refuse(w, r.URL.Redacted(), err)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	resp, err := transport.RoundTrip(out)
	if err != nil {
		if _, ok := Refused(err); ok {
			p.refuse(w, r.URL.Redacted(), err)
			return
		}
		http.Error(w, "toolgate proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		if k == "Connection" || k == "Keep-Alive" {
			continue
		}
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// tunnel serves CONNECT: it dials the target through the guard and pipes
// bytes both ways.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, "bad CONNECT target", http.StatusBadRequest)
		return
	}
	scheme := "https"
	if port == "80" {
		scheme = "http"
	}
	target := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if err := p.check(target); err != nil {
		p.refuse(w, r.Host, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	var upstream net.Conn
	if p.isLocal(host, portOf(target)) {
		upstream, err = p.dialLocal(ctx, r.Host)
	} else {
		upstream, err = p.dialer.DialContext(ctx, "tcp", r.Host)
	}
	cancel()
	if err != nil {
		if _, ok := Refused(err); ok {
			p.refuse(w, r.Host, err)
			return
		}
		http.Error(w, "toolgate proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "tunnels unsupported", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	p.track(client, upstream)
	go func() {
		defer p.untrack(client, upstream)
		done := make(chan struct{}, 2)
		go func() { io.Copy(upstream, buf); done <- struct{}{} }()
		go func() { io.Copy(client, upstream); done <- struct{}{} }()
		<-done
	}()
}

func (p *Proxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.tunnels[c] = struct{}{}
	}
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(p.tunnels, c)
	}
}

// isLocal reports whether a request for host:port goes to the
// LocalDialer: host names localhost, and the guard does not let the
// address through to toolgate's own loopback (a configured exception, a
// test server say, keeps meaning toolgate's).
func (p *Proxy) isLocal(host string, port uint16) bool {
	if p.local == nil {
		return false
	}
	ip := netip.MustParseAddr("127.0.0.1")
	switch h := strings.ToLower(strings.TrimSuffix(host, ".")); h {
	case "localhost", "127.0.0.1":
	case "::1":
		ip = netip.IPv6Loopback()
	default:
		return false
	}
	return p.guard.CheckAddr(netip.AddrPortFrom(ip, port)) != nil
}

// check applies the guard to a URL; one for localhost sent to the
// LocalDialer skips the address check (it reaches no address of
// toolgate's), not the others.
func (p *Proxy) check(u *url.URL) error {
	g := p.guard
	if p.isLocal(u.Hostname(), portOf(u)) {
		g.AllowPrivate = true
	}
	return g.CheckURL(u)
}

// dialLocal connects to a localhost host:port through the LocalDialer.
func (p *Proxy) dialLocal(ctx context.Context, hostport string) (net.Conn, error) {
	_, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", portText)
	}
	return p.local(ctx, port)
}
