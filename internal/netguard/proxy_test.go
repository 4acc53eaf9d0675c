package netguard

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestProxy: plain requests and CONNECT tunnels through the proxy reach
// an allowed address and are refused, with a reason, anywhere else.
func TestProxy(t *testing.T) {
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	plain := httptest.NewServer(hello)
	t.Cleanup(plain.Close)
	secure := httptest.NewTLSServer(hello)
	t.Cleanup(secure.Close)
	other := httptest.NewServer(hello)
	t.Cleanup(other.Close)

	var mu sync.Mutex
	var refused []string
	g := Guard{AllowAddresses: []netip.AddrPort{
		netip.MustParseAddrPort(plain.Listener.Addr().String()),
		netip.MustParseAddrPort(secure.Listener.Addr().String()),
	}}
	p, err := StartProxy(g, func(target string, err error) {
		mu.Lock()
		refused = append(refused, target)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	proxyURL, _ := url.Parse("http://" + p.Addr())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL),
		TLSClientConfig: &tls.Config{RootCAs: secure.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}}}

	get := func(u string) (int, string, error) {
		resp, err := client.Get(u)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	for _, u := range []string{plain.URL, secure.URL} {
		if code, body, err := get(u); err != nil || code != 200 || body != "hello" {
			t.Errorf("%s: got %d %q %v, want the page", u, code, body, err)
		}
	}
	if code, body, err := get(other.URL); err != nil || code != http.StatusForbidden || !strings.Contains(body, "loopback") {
		t.Errorf("refused http: got %d %q %v, want 403 naming loopback", code, body, err)
	}
	if _, _, err := get("https://" + other.Listener.Addr().String()); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("refused CONNECT: got %v, want the tunnel refused", err)
	}
	if _, _, err := get("http://localhost:" + strings.Split(other.Listener.Addr().String(), ":")[1]); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refused) != 3 {
		t.Errorf("refusals heard: %v, want 3", refused)
	}
}

// TestProxyRefusesZones: a browser behind the proxy asking for a zoned
// spelling of ::1, as a plain request or a CONNECT tunnel (written raw: Go's
// own client drops the zone), is refused and the loopback service sees
// nothing.
func TestProxyRefusesZones(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	var hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	p, err := StartProxy(Guard{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	for _, zone := range []string{"lo", "1", "eth0"} {
		hostport := "[::1%25" + zone + "]:" + port
		for _, req := range []string{
			"GET http://" + hostport + "/ HTTP/1.1\r\nHost: " + hostport + "\r\n\r\n",
			"CONNECT [::1%" + zone + "]:" + port + " HTTP/1.1\r\nHost: [::1%" + zone + "]:" + port + "\r\n\r\n",
			"CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n\r\n",
		} {
			status := rawProxyRequest(t, p.Addr(), req)
			if strings.HasPrefix(status, "HTTP/1.1 2") {
				t.Errorf("%q: proxy answered %q, want a refusal", req, status)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback service saw %d requests, want 0", n)
	}
}

// rawProxyRequest writes req to the proxy as it is and returns the
// status line of the answer.
func rawProxyRequest(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	resp.Body.Close()
	return resp.Proto + " " + resp.Status
}

// TestLocalProxy: with a LocalDialer, requests for localhost (plain and
// tunnelled) reach what it dials, a session's dev server, and never a
// service on toolgate's own loopback of the same port; other private
// addresses stay refused.
func TestLocalProxy(t *testing.T) {
	var hostHits atomic.Int64
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hostHits.Add(1) }))
	t.Cleanup(host.Close)
	session := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "session page") }))
	t.Cleanup(session.Close)
	_, hostPort, _ := net.SplitHostPort(host.Listener.Addr().String())
	want, _ := strconv.Atoi(hostPort)
	local := func(ctx context.Context, port int) (net.Conn, error) {
		if port != want {
			return nil, fmt.Errorf("nothing listens on %d", port)
		}
		return (&net.Dialer{}).DialContext(ctx, "tcp", session.Listener.Addr().String())
	}
	p, err := StartLocalProxy(Guard{}, nil, local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	proxyURL, _ := url.Parse("http://" + p.Addr())
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	for _, u := range []string{"http://localhost:" + hostPort + "/", "http://127.0.0.1:" + hostPort + "/", "http://[::1]:" + hostPort + "/"} {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "session page" {
			t.Errorf("%s: %d %q, want the session's page", u, resp.StatusCode, b)
		}
	}
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT localhost:%s HTTP/1.1\r\nHost: localhost:%s\r\n\r\n", hostPort, hostPort)
	br := bufio.NewReader(c)
	if status, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("CONNECT localhost: %q %v", status, err)
	}
	for line, _ := br.ReadString('\n'); line != "\r\n" && line != ""; line, _ = br.ReadString('\n') {
	}
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("through the tunnel: %v %v", resp, err)
	}
	if resp, err := client.Get("http://10.0.0.1:" + hostPort + "/"); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a private address: %v %v, want 403", resp, err)
	}
	if n := hostHits.Load(); n != 0 {
		t.Errorf("toolgate's loopback service saw %d requests, want 0", n)
	}
	// An address the config lets through stays toolgate's own.
	allowed, err := StartLocalProxy(Guard{AllowAddresses: []netip.AddrPort{netip.MustParseAddrPort(host.Listener.Addr().String())}}, nil, local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { allowed.Close() })
	allowedURL, _ := url.Parse("http://" + allowed.Addr())
	client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(allowedURL)}}
	if resp, err := client.Get("http://127.0.0.1:" + hostPort + "/"); err != nil || resp.StatusCode != 200 || hostHits.Load() != 1 {
		t.Errorf("a configured loopback address: %v %v, host hits %d; want toolgate's own service", resp, err, hostHits.Load())
	}
}
