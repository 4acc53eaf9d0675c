package netguard

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
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
